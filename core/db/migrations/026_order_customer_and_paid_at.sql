-- One order model (docs/decisions/order-model.md). The contact the customer verified with the one-time
-- code, sealed with the keyring (core/orders/customer-seal.ts) like every other secret: the merchant
-- receives it in clear in the Order API and its events, the database never holds it so. And when the
-- payment succeeded (for a manual capture, when the card was authorized).
alter table carts add column customer_sealed bytea, add column paid_at timestamptz;

-- Paid before this column: the order_created event is when the order came to exist.
update carts set paid_at = (select min(created_at) from webhook_events ev where ev.cart_id = carts.cart_id and ev.event = 'order_created')
where status in ('authorized', 'paid', 'partially_refunded', 'refunded', 'cancelled');
