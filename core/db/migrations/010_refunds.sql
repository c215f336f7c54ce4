-- Refunds of paid orders. A refund's amount is reserved (status pending) in the same transaction that
-- locks its cart and checks pending + succeeded refunds + this amount <= the captured amount, so two
-- concurrent refunds can never exceed what was paid. A failed refund releases its reservation.
create table refunds (
  id text primary key,
  cart_id text not null references carts(cart_id),
  platform_uuid uuid not null references merchants(platform_uuid),
  amount bigint not null check (amount > 0),
  reason text,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  failure_code text,
  -- The processor's id for the refund, once it succeeded.
  processor_refund_id text,
  -- The order's refunded total right after this refund succeeded: what its order_refunded event says,
  -- the same on every retry of the recording.
  refunded_total_after bigint,
  -- The merchant's Idempotency-Key, scoped by merchant and kept as long as the refund: a retry days
  -- later still finds the refund instead of making a second one.
  idempotency_key text,
  -- SHA-256 of the canonical (cartId, amount, reason): the same key with another request is a conflict.
  request_fingerprint text not null,
  created_at timestamptz not null default now(),
  settled_at timestamptz,
  check ((status = 'failed') = (failure_code is not null))
);
create index refunds_cart on refunds (cart_id, created_at);
create unique index refunds_idempotency_key on refunds (platform_uuid, idempotency_key) where idempotency_key is not null;

-- The sum of a cart's succeeded refunds, kept beside its status in the same transaction.
alter table carts add column refunded_amount bigint not null default 0;

-- The merchant API's filters: newest first per merchant and environment, and by one `extra` key and value.
create index carts_merchant_env_created on carts (platform_uuid, environment, created_at desc, cart_id desc);
create index carts_extra on carts using gin ((cart -> 'extra') jsonb_path_ops);
