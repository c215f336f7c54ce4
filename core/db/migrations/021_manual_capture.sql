-- Manual capture (docs/decisions/manual-capture.md). What a manual-capture order captured, set when the
-- merchant captures its authorization: refunds are held to it. Null: the order was captured in full
-- at payment (automatic capture), or is not captured (yet).
alter table carts add column captured_amount bigint check (captured_amount > 0);

-- The sandbox acquirer's captures of manual authorizations (core/checkout/payment-processors/sandbox-charges.ts):
-- the first capture's amount; the rest of the hold is released.
alter table sandbox_charges add column captured_amount bigint;
