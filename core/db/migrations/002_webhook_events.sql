-- Every webhook event a cart produced, in order. The body is fixed when the event is created, so a
-- retry or a replay sends the same event; only the timestamp and signature are made per attempt.
create table webhook_events (
  id text primary key,
  cart_id text not null references carts(cart_id),
  platform_uuid uuid not null references merchants(platform_uuid),
  sequence integer not null,
  event text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  unique (cart_id, sequence)
);
create index webhook_events_merchant_created on webhook_events (platform_uuid, created_at desc);
