-- What a repeatable event is about, for the events a cart may have more than one of with the same name
-- and status: a dispute's step (dispute:<id>:<status>, a reminder :r<n>) and a refund that failed after
-- it was accepted (refund_failed:<id>). Null for every other event, which happens once per cart and status.
alter table webhook_events add column subject text;
