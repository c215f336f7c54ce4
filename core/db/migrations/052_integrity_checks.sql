-- Issue 52, point 4: the scheduled tamper check of the payment pages (core/integrity/tamper-check.ts).
-- Every run is kept, clean or not (the assessor's proof the check ran on schedule); an alert is one
-- distinct difference (a page variant and what differs), open until an operator acknowledges it and a
-- later run no longer finds it. A run finding it again touches the same alert, never a second one.
create table integrity_check_runs (
  id bigserial primary key,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  pages integer,
  result text check (result in ('clean', 'differences', 'failed')),
  differences integer,
  failure text
);
create index integrity_check_runs_started on integrity_check_runs (started_at desc);

create table integrity_alerts (
  id bigserial primary key,
  fingerprint text not null check (fingerprint ~ '^[0-9a-f]{64}$'),
  variant text not null,
  difference text not null,
  status text not null default 'open' check (status in ('open', 'acknowledged', 'closed')),
  first_run_id bigint not null references integrity_check_runs (id),
  last_run_id bigint not null references integrity_check_runs (id),
  -- Whether the latest run found it: an acknowledged alert a later run no longer finds is closed.
  seen_in_last_run boolean not null default true,
  raised_at timestamptz not null default now(),
  acknowledged_at timestamptz,
  acknowledged_by text,
  note text,
  closed_at timestamptz,
  closed_by_run_id bigint references integrity_check_runs (id)
);
create unique index integrity_alerts_one_unclosed on integrity_alerts (fingerprint) where status <> 'closed';
create index integrity_alerts_raised on integrity_alerts (raised_at desc);
