-- The dashboard's funnel (core/checkout/cart-ledger.ts cartFunnel): when the hosted page first
-- reached each step of a session, written by the page where each happens (web/checkout/routes.ts) and
-- only once per cart. Null on carts created before this migration: the funnel infers what it can from
-- their status and card (docs/dashboard.md).
alter table carts
  add column page_opened_at timestamptz,
  add column code_sent_at timestamptz,
  add column code_verified_at timestamptz,
  add column pay_attempted_at timestamptz;

-- The operators' webhook health reads every endpoint's attempts of the last days.
create index webhook_attempts_attempted on webhook_attempts (attempted_at);
