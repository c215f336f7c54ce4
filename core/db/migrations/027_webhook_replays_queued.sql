-- Replays waiting in a cart's delivery workflow behind an earlier event still pending at their
-- endpoint (core/webhooks/replay.ts): a second replay of the same event to the same endpoint, asked
-- while the first still waits, adds nothing and says so (`already_queued`). The delivery activity
-- deletes the row as it sends the replay.
create table webhook_replays_queued (
  event_id text not null references webhook_events(id),
  endpoint_id uuid not null references webhook_endpoints(id),
  queued_at timestamptz not null default now(),
  primary key (event_id, endpoint_id)
);
