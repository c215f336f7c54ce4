-- The processor's reference for the cart's approved charge (Stripe: the PaymentIntent id), stored by
-- the payment activities when the charge is approved (activities/cart-session/payments.ts) and used by
-- void and refund, so they never depend on a lookup by key (Stripe's search is eventually consistent).
alter table carts add column payment_reference text;

-- The sandbox simulator's acquirer (core/checkout/payment-processors/sandbox-charges.ts): its approved
-- charges and its refunds, so a refund after a worker restart finds the charge it refunds.
create table sandbox_charges (
  idempotency_key text primary key,
  charge_id text not null unique,
  created_at timestamptz not null default now()
);

create table sandbox_refunds (
  idempotency_key text primary key,
  charge_id text not null references sandbox_charges (charge_id),
  result jsonb not null,
  created_at timestamptz not null default now()
);
