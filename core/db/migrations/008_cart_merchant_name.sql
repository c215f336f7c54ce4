-- The merchant's registered name when the cart was created, so the page can show who takes the money
-- next to the store name the request carried, without a second query.
alter table carts add column merchant_name text;
update carts c set merchant_name = m.name from merchants m where m.platform_uuid = c.platform_uuid;
alter table carts alter column merchant_name set not null;
