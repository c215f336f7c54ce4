-- Who made each cart: `api_key` when the create-cart request carried the merchant's valid API key,
-- `public` otherwise (the create-cart route is public: anyone who knows a platformUuid can make a cart
-- for that merchant). Webhook events and the orders API carry it as `createdWith`. Rows made before this
-- column are marked `public`: nothing proves a key was sent for them. An older API still inserting
-- during a rollout writes the same default, the safe answer.
alter table carts add column created_with text not null default 'public' check (created_with in ('api_key', 'public'));
