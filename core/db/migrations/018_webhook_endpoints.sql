-- Several webhook endpoints per merchant, each with its own URL, secrets, events and
-- description. The merchant's existing endpoint keeps its id, URL, secrets and state, subscribed to
-- every event ('*'): it becomes the merchant's first endpoint. Deleting an endpoint keeps its row
-- (its attempts and deliveries name it) and stops everything sent to it.
alter table webhook_endpoints drop constraint webhook_endpoints_platform_uuid_key;
alter table webhook_endpoints
  add column enabled_events text[] not null default '{*}',
  add column description text not null default '',
  add column deleted_at timestamptz;
create index webhook_endpoints_merchant on webhook_endpoints (platform_uuid, created_at) where deleted_at is null;

-- Where each event stands at each endpoint that wanted it: one row per (event, endpoint), written with
-- the event. webhook_events.delivery_status becomes their summary; an event no endpoint wants has no
-- row here and the summary 'unsubscribed': recorded, never sent.
create table webhook_deliveries (
  event_id text not null references webhook_events(id),
  endpoint_id uuid not null references webhook_endpoints(id),
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'skipped')),
  delivered_at timestamptz,
  primary key (event_id, endpoint_id)
);
create index webhook_deliveries_endpoint_undelivered on webhook_deliveries (endpoint_id, event_id) where status <> 'delivered';

insert into webhook_deliveries (event_id, endpoint_id, status, delivered_at)
  select ev.id, e.id, ev.delivery_status, ev.delivered_at from webhook_events ev join webhook_endpoints e using (platform_uuid);

alter table webhook_events drop constraint webhook_events_delivery_status_check;
alter table webhook_events add constraint webhook_events_delivery_status_check
  check (delivery_status in ('pending', 'delivered', 'failed', 'skipped', 'unsubscribed'));
