-- Retries of a failed session (POST /v2/merchant/carts/{cartId}/retry, docs/decisions/cart-retries.md).
-- retry_of: the cart this session retries, null for a cart the merchant created. Unique: a cart is
-- retried at most once, so the retries of one cart form a chain and at most one session of it is open.
-- retry_root: the first cart of that chain, so its retries are counted against its cap in one query.
alter table carts
  add column retry_of text unique references carts (cart_id),
  add column retry_root text references carts (cart_id),
  add constraint carts_retry_lineage check ((retry_of is null) = (retry_root is null));

create index carts_retry_root on carts (retry_root) where retry_root is not null;
