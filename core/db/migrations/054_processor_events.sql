-- The processor's own events (POST /processor-events/stripe), each kept once by the processor's id so a
-- redelivered event is answered 200 and never acted on twice (core/checkout/processor-events.ts). Only
-- what routing needs: the type and the object it is about, never the event's body (it may carry
-- customer data).
create table processor_events (
  processor text not null,
  id text not null,
  type text not null,
  object_id text,
  -- handled: handed to a workflow; ignored: a type we do not act on, or an object we do not know.
  outcome text not null check (outcome in ('handled', 'ignored')),
  received_at timestamptz not null default now(),
  primary key (processor, id)
);
