-- What 3-D Secure did for the cart's payment (authenticated, frictionless, failed, not_required), written
-- by the session with its outcome (core/checkout/cart-ledger.ts) and shown by the orders API.
alter table carts add column three_d_secure text;

-- The sandbox simulator's issuer (core/checkout/payment-processors/sandbox-charges.ts): each payment
-- waiting on a 3-D Secure challenge and the cardholder's answer on the sandbox challenge page, which the
-- checkout page's process records and the worker's processor reads. A void closes the challenge.
create table sandbox_authentications (
  idempotency_key text primary key,
  charge_id text not null unique,
  redirect_url text not null,
  result text check (result in ('authenticated', 'failed')),
  voided_at timestamptz,
  created_at timestamptz not null default now()
);
