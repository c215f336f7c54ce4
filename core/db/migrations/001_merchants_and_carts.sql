-- Merchants, identified publicly by their platformUuid. One row per environment.
create table merchants (
  platform_uuid uuid primary key,
  name text not null,
  environment text not null check (environment in ('sandbox', 'production')),
  status text not null default 'active' check (status in ('active', 'inactive')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Where a merchant's webhooks go. Secrets live in webhook_secrets, encrypted.
create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  platform_uuid uuid not null unique references merchants(platform_uuid),
  url text not null,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Signing secrets, AES-256-GCM under DATA_ENCRYPTION_KEY; during rotation several are live at once.
create table webhook_secrets (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references webhook_endpoints(id),
  secret_encrypted bytea not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz
);
create index webhook_secrets_endpoint on webhook_secrets (endpoint_id);

-- The order ledger: a projection of each cart session, written when the session is created and by
-- the workflow's activities as it moves. Temporal stays the source of truth for the session itself.
create table carts (
  cart_id text primary key,
  platform_uuid uuid not null references merchants(platform_uuid),
  environment text not null,
  status text not null,
  currency text not null,
  amount bigint not null,
  store jsonb not null,
  cart jsonb not null,
  expires_on timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index carts_merchant_created on carts (platform_uuid, created_at desc);
