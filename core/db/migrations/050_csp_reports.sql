-- Issue 52, point 3: the CSP and integrity violations browsers report from our pages
-- (core/integrity/csp-reports.ts). One row per distinct violation, counted: a page seen by thousands
-- of customers reports the same violation thousands of times. URLs are kept without query or fragment,
-- and a recovery link's path token is replaced: the cart token and the recovery token are bearers.
create table csp_reports (
  id bigserial primary key,
  fingerprint text not null unique check (fingerprint ~ '^[0-9a-f]{64}$'),
  report_type text not null check (report_type in ('csp-violation', 'integrity-violation')),
  document_url text not null,
  directive text not null,
  blocked_url text not null,
  source_file text,
  line_number integer,
  column_number integer,
  disposition text not null check (disposition in ('enforce', 'report')),
  first_seen_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  times integer not null default 1 check (times > 0)
);
create index csp_reports_last_seen on csp_reports (last_seen_at desc);
