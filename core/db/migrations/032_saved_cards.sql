-- Saved cards (docs/saved-cards.md): a card the customer chose to keep, by the processor's references
-- only (Stripe: the Customer and its attached PaymentMethod; sandbox: its saved-card reference), with
-- brand, last 4 and expiry for the page to show. Never the number, never the CVV. The contact is the
-- keyed digest the code limits count under (core/checkout/otp/destination.ts), never in clear. A card
-- saved in a session whose payment is not yet approved carries that session's cart in pending_cart_id
-- and is offered nowhere until the approval clears it; removed_at marks a card the customer or an
-- operator removed, or the schedule found stale, until its detach at the processor deletes the row.
create table saved_cards (
  id text primary key,
  contact_key text not null,
  processor text not null,
  customer_ref text,
  payment_method_ref text not null,
  brand text not null,
  last4 text not null check (last4 ~ '^[0-9]{4}$'),
  exp_month integer not null check (exp_month between 1 and 12),
  exp_year integer not null,
  pending_cart_id text,
  removed_at timestamptz,
  created_at timestamptz not null default now(),
  last_used_at timestamptz not null default now(),
  unique (processor, payment_method_ref)
);
create index saved_cards_by_contact on saved_cards (contact_key, last_used_at desc);
create index saved_cards_pending on saved_cards (pending_cart_id) where pending_cart_id is not null;

-- Whether a merchant's checkout offers saved cards after the code (default on; dashboard and operator API).
alter table merchants add column saved_cards_allowed boolean not null default true;

-- Whether the cart's payment was made with a saved card: the order's payment.savedCard.
alter table carts add column paid_with_saved_card boolean;

-- The sandbox's saved-card references: what it issued, which test-card behaviour each answers with
-- (never the number), and when it was detached; a detached or unknown reference is declined.
create table sandbox_payment_methods (
  reference text primary key,
  behaviour text not null,
  detached_at timestamptz,
  created_at timestamptz not null default now()
);
