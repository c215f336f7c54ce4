-- A session's lineage spends one recovery (docs/abandoned-cart-recovery.md, docs/decisions/cart-retries.md).
-- after_recovery: true for a session a recovery link opened and for every retry made in its line since,
-- so none of them offers a recovery or a reminder of its own. Before this column a retry of a recovered
-- session started a lineage afresh: it offered a recovery again, and counted its retries from zero.
alter table carts add column after_recovery boolean not null default false;

-- Until now a retry of a recovered session named that session as its retry_root.
update carts set after_recovery = true
where recovered_from is not null
   or retry_root in (select cart_id from carts where recovered_from is not null);
