-- Who ended a cancelled session: the customer (Cancel on the page) or the merchant (the expire
-- endpoint, POST /v2/merchant/carts/{cartId}/expire). The page reads it from the ledger to tell the
-- customer the store closed the checkout, also after the workflow is gone. Null on every other status
-- and on carts cancelled before this column existed (all of them by their customer).
alter table carts add column cancelled_by text check (cancelled_by in ('customer', 'merchant'));
