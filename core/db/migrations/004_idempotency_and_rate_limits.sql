-- Idempotency-Key of POST /v2/public/api/cart/, scoped by merchant. The row is inserted in the same
-- transaction as the cart, so a second request with the same key blocks on the unique key until the
-- first commits, then reads the stored response instead of creating a second session.
create table idempotency_keys (
  platform_uuid uuid not null references merchants(platform_uuid),
  key text not null,
  -- SHA-256 of the canonical request body: same key with another body is a conflict.
  fingerprint text not null,
  cart_id text references carts(cart_id),
  -- json, not jsonb: a replay must be byte for byte the first response, key order included.
  response json,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (platform_uuid, key)
);
create index idempotency_keys_expires on idempotency_keys (expires_at);

-- Fixed-window request counters, shared by every API process (the API keeps no state in memory).
-- Windows of different lengths may share the table (processes configured differently), so each row
-- says when it ends and is pruned by that, never by another process's window length.
create table rate_limit_windows (
  bucket text not null,
  window_start timestamptz not null,
  window_end timestamptz not null,
  hits integer not null,
  primary key (bucket, window_start)
);
create index rate_limit_windows_end on rate_limit_windows (window_end);
