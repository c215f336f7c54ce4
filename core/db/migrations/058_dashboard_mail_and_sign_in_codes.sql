-- Dashboard mail (docs/decisions/dashboard.md, "One-time codes by email"): the codes that sign a
-- person in without a passkey, and sandbox's outbox for what the dashboard emails (sign-in codes and
-- invitation links). otp_outbox belongs to carts (its cart_id is required); these messages have none.

-- A code to an email, for one side (a merchant's people or the operators). Only a keyed hash of the
-- code is kept (HMAC under a key derived from the data key, so the table alone cannot test guesses);
-- it works once, until expires_at, for a few attempts. Only the newest code of an email and side counts.
create table dashboard_sign_in_codes (
  id uuid primary key default gen_random_uuid(),
  email text not null check (email = lower(email) and length(email) between 3 and 254),
  operators boolean not null,
  code_hash text not null check (code_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  attempts integer not null default 0 check (attempts >= 0),
  used_at timestamptz
);
create index dashboard_sign_in_codes_newest on dashboard_sign_in_codes (email, operators, created_at desc);
-- Codes a day past their expiry are deleted as new ones are made.
create index dashboard_sign_in_codes_expiry on dashboard_sign_in_codes (expires_at);

-- Sandbox's stand-in for the dashboard's email: the recipient and the message's secret part (a code,
-- an invitation link) sealed under the data key, as otp_outbox seals the checkout's.
create table dashboard_mail_outbox (
  id bigserial primary key,
  kind text not null check (kind in ('sign_in_code', 'invitation')),
  recipient_hint text not null,
  recipient_sealed bytea not null,
  secret_sealed bytea not null,
  created_at timestamptz not null default now()
);
