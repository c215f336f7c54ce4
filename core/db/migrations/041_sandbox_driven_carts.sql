-- A sandbox cart the merchant's sandbox helpers drive by API (POST /v2/sandbox/carts/{cartId}/complete,
-- api/sandbox/): when the helper claimed it, which it may only while no browser has started the cart
-- (customer_started_at null). From then on the helper is the cart's one customer: the checkout page
-- serves it to no browser, and a browser that started first keeps the cart from the helper.
alter table carts add column sandbox_driven_at timestamptz;
