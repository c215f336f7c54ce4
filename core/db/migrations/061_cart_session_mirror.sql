-- The hosted page's copy of each cart session's state (docs/decisions/page-first-load.md, "The state
-- mirror"): written by the page from the result of an update it sent, so its later loads and posts
-- need no Temporal query. `generation` counts the page's updates and `in_flight` those not finished;
-- every update nulls `state` before it is sent, so a copy is only ever one no update has moved past.
create table cart_session_mirrors (
  cart_id text primary key references carts(cart_id) on delete cascade,
  generation bigint not null,
  in_flight integer not null,
  state jsonb
);
