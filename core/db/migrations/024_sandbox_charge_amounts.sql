-- What the sandbox acquirer charged (core/checkout/payment-processors/sandbox-charges.ts), in its units:
-- ISO 4217 minor units of `currency`. Null for a charge recorded by a process that no longer knew the
-- request (a lookup after a restart) and for charges made before this migration.
alter table sandbox_charges add column amount bigint, add column currency text;
