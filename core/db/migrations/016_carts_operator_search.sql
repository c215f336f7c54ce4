-- The operator dashboard's search across every merchant (core/checkout/cart-ledger.ts searchCarts):
-- newest first with no filter, or one status newest first, without reading the whole table. A
-- merchant's carts use carts_merchant_env_created, a cartId the primary key.
create index carts_created on carts (created_at desc, cart_id desc);
create index carts_status_created on carts (status, created_at desc, cart_id desc);
