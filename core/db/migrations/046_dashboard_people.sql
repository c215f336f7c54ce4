-- Dashboard people (docs/decisions/dashboard.md): a merchant's team members and the deployment's
-- operators, each with an email and one role; the sessions the dashboard's cookie names, kept here so
-- that sign-out, a role change, a removal or a passkey's deletion ends them at once; invitations; and
-- the most a support member may refund, per currency.
create table dashboard_users (
  id uuid primary key default gen_random_uuid(),
  -- null: an operator of this deployment, not a merchant's member.
  platform_uuid uuid references merchants(platform_uuid),
  email text not null check (email = lower(email) and length(email) between 3 and 254),
  role text not null check (role in ('owner', 'developer', 'support', 'analyst', 'operator', 'operator_admin')),
  check ((platform_uuid is null) = (role in ('operator', 'operator_admin'))),
  created_at timestamptz not null default now(),
  removed_at timestamptz
);
create unique index dashboard_users_one_email on dashboard_users (coalesce(platform_uuid::text, 'operators'), email) where removed_at is null;

-- The cookie holds 32 random bytes; only their SHA-256 is kept. A session is a user's, or a bootstrap
-- sign-in's: a merchant's API key (as owner) or OPERATOR_TOKEN (as operator_admin, bound to a digest
-- of the token so that changing it ends those sessions).
create table dashboard_sessions (
  token_hash bytea primary key check (length(token_hash) = 32),
  user_id uuid references dashboard_users(id),
  platform_uuid uuid references merchants(platform_uuid),
  api_key_id uuid references merchant_api_keys(id),
  operator_token_digest text,
  role text not null check (role in ('owner', 'developer', 'support', 'analyst', 'operator', 'operator_admin')),
  check (num_nonnulls(user_id, api_key_id, operator_token_digest) = 1),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ended_at timestamptz
);
create index dashboard_sessions_of_user on dashboard_sessions (user_id) where ended_at is null;

create table dashboard_invitations (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null unique check (length(token_hash) = 32),
  platform_uuid uuid references merchants(platform_uuid),
  email text not null check (email = lower(email)),
  role text not null check (role in ('owner', 'developer', 'support', 'analyst', 'operator', 'operator_admin')),
  check ((platform_uuid is null) = (role in ('operator', 'operator_admin'))),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  revoked_at timestamptz
);
create index dashboard_invitations_pending on dashboard_invitations (platform_uuid) where accepted_at is null and revoked_at is null;

-- A WebAuthn credential (@simplewebauthn/server): its id and public key, never a secret.
create table dashboard_passkeys (
  credential_id text primary key,
  user_id uuid not null references dashboard_users(id),
  public_key bytea not null,
  counter bigint not null check (counter >= 0),
  transports text[] not null default '{}',
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  deleted_at timestamptz
);
create index dashboard_passkeys_of_user on dashboard_passkeys (user_id) where deleted_at is null;

-- The most a `support` member may refund at once, in the currency's minor units; none set: nothing.
create table merchant_support_refund_limits (
  platform_uuid uuid not null references merchants(platform_uuid),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  max_amount bigint not null check (max_amount >= 0),
  primary key (platform_uuid, currency)
);
