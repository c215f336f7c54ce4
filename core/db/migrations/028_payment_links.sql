-- Payment links (docs/payment-links.md): a merchant's cart, kept once, from which every visit of
-- `{CHECKOUT_BASE_URL}/l/<id>` mints a session of its own through create-cart's path
-- (web/checkout/payment-link-route.ts). The table's one owner is core/links/payment-links.ts.
create table payment_links (
  id text primary key,
  platform_uuid uuid not null references merchants(platform_uuid),
  environment text not null,
  -- The cartObject exactly as accepted ({store, cart}), what each session is created from.
  cart_object jsonb not null,
  -- Paid sessions (paid_at set) after which the link answers 410; null: no limit.
  max_uses integer check (max_uses is null or max_uses > 0),
  expires_at timestamptz,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  closed_at timestamptz
);
create index payment_links_merchant_created on payment_links (platform_uuid, environment, created_at desc);

-- The link a session was minted from; null for every cart made by create-cart itself. The Order API
-- and every event's data carry it as paymentLinkId (core/orders/order-model.ts).
alter table carts add column payment_link_id text references payment_links(id);
create index carts_payment_link on carts (payment_link_id) where payment_link_id is not null;
