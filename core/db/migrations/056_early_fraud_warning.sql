-- When the processor warned that the order's charge is likely fraudulent (Stripe's
-- radar.early_fraud_warning.created); null when it never did.
alter table carts add column early_fraud_warning_at timestamptz;
