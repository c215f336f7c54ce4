-- Where each event stands: pending until a 2xx, then delivered; failed once its retries are spent (or
-- the endpoint answered 410); skipped when its endpoint was disabled. Failed and skipped events stay
-- replayable, so nothing a merchant should have received is ever dropped.
alter table webhook_events
  add column delivery_status text not null default 'pending'
    check (delivery_status in ('pending', 'delivered', 'failed', 'skipped')),
  add column delivered_at timestamptz;
create index webhook_events_undelivered on webhook_events (platform_uuid, created_at) where delivery_status in ('failed', 'skipped');

-- Set at an endpoint's first failure after a success; an endpoint failing for days is disabled.
alter table webhook_endpoints add column failing_since timestamptz;

-- Every HTTP attempt, successful or not: what an operator or a merchant needs to debug a delivery.
create table webhook_attempts (
  id bigserial primary key,
  event_id text not null references webhook_events(id),
  endpoint_id uuid not null references webhook_endpoints(id),
  attempt integer not null,
  trigger text not null check (trigger in ('scheduled', 'replay', 'recover')),
  attempted_at timestamptz not null,
  url text not null,
  http_status integer,
  error_class text,
  latency_ms integer not null,
  response_excerpt text,
  next_attempt_at timestamptz
);
create index webhook_attempts_event on webhook_attempts (event_id, id);
create index webhook_attempts_endpoint on webhook_attempts (endpoint_id, attempted_at desc);
