-- The audit log (issue 51, point 4): every decision a person, a key or an operator makes, who made it,
-- from which address, on what, and the before/after of a settings change (never a secret). Append-only
-- in the database itself: migrations and the application share one connection, so a grant could not
-- tell them apart; a trigger refuses every UPDATE, DELETE and TRUNCATE, whoever runs it.
create table audit_log (
  id uuid primary key default gen_random_uuid(),
  -- Milliseconds, what a JavaScript Date holds: a page's cursor (at, id) then compares exactly.
  at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  -- Null for an operator's decision that concerns no one merchant.
  platform_uuid uuid references merchants(platform_uuid),
  actor_type text not null check (actor_type in ('api_key', 'user', 'operator')),
  actor_id text not null check (length(actor_id) between 1 and 200),
  -- The key's name or the user's email when the entry was written: what a reader recognises.
  actor_label text check (length(actor_label) <= 320),
  ip text check (length(ip) <= 64),
  action text not null check (action ~ '^[a-z_]+\.[a-z_]+$'),
  target text check (length(target) <= 400),
  before jsonb,
  after jsonb
);
create index audit_log_merchant_at on audit_log (platform_uuid, at desc, id desc);
create index audit_log_at on audit_log (at desc, id desc);

create function audit_log_refuse_change() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'insufficient_privilege';
end
$$;
create trigger audit_log_no_update_or_delete before update or delete on audit_log
  for each row execute function audit_log_refuse_change();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_refuse_change();
