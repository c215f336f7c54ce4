-- Abandoned-cart recovery (docs/abandoned-cart-recovery.md): the abandoned cart a session was opened
-- from by its recovery link (web/checkout/recovery-route.ts); null for every other cart. Unique: an
-- abandoned cart has at most one recovered session, so a second visit of its link finds that session
-- (and the index behind the constraint) instead of opening another the customer could also pay.
alter table carts add column recovered_from text unique references carts (cart_id);
