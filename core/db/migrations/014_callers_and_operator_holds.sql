-- Who calls, and who decides: the provenance of each cart, idempotency keys scoped to their caller, and
-- an operator's hold on a webhook endpoint (issue 21).

-- Who made each cart: `api_key` when the create-cart request carried the merchant's valid API key,
-- `public` otherwise (the create-cart route is public: anyone who knows a platformUuid can make a cart
-- for that merchant). Webhook events and the orders API carry it as `createdWith`. Rows made before this
-- column are marked `public`: nothing proves a key was sent for them. An older API still inserting
-- during a rollout writes the same default, the safe answer.
alter table carts add column created_with text not null default 'public' check (created_with in ('api_key', 'public'));

-- Idempotency keys scoped to the caller, not only the merchant: `api_key` for requests that carried the
-- merchant's API key, `public:<client address>` for the others. Scoped by the public platformUuid alone,
-- a stranger could claim the merchant's keys first (its real request then answered 409) or, guessing the
-- body, be replayed the merchant's cartId. Keys claimed before this live out their 24 hours under the
-- caller `unscoped`, which no request uses: a retry across the upgrade makes a new cart. An API of the
-- previous version must not run beside this one (its claims name the old primary key).
alter table idempotency_keys add column caller text not null default 'unscoped';
alter table idempotency_keys alter column caller drop default;
alter table idempotency_keys drop constraint idempotency_keys_pkey, add primary key (platform_uuid, caller, key);

-- An endpoint an operator disabled stays disabled until an operator enables it: the merchant saving a
-- URL (even the same one) no longer re-enables it, and replays are not sent to it. Endpoints disabled by
-- delivery failures (410, days of errors) stay the merchant's to re-enable. Existing operator disables
-- are recognised by the reason the operator paths wrote (core/merchants/merchants.ts).
alter table webhook_endpoints add column disabled_by_operator boolean not null default false;
update webhook_endpoints set disabled_by_operator = true where status = 'disabled' and disabled_reason = 'disabled by an operator';
