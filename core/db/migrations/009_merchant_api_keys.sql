-- Merchant API keys: `sk_<environment>_<base64url of 32 random bytes>`, shown once. Only a SHA-256
-- digest is stored (the key has 256 bits of entropy, so a digest cannot be reversed by guessing, and
-- unlike an HMAC under the keyring it survives a data-key rotation), plus a short prefix to tell keys
-- apart. At most one active (not revoked) key per merchant; rotation revokes the old one at once.
create table merchant_api_keys (
  id uuid primary key default gen_random_uuid(),
  platform_uuid uuid not null references merchants(platform_uuid),
  key_hash bytea not null unique check (length(key_hash) = 32),
  key_prefix text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create unique index merchant_api_keys_one_active on merchant_api_keys (platform_uuid) where revoked_at is null;

-- When on, create-cart for this merchant needs Authorization: Bearer <its API key>. Off by default:
-- the specification's create-cart is public.
alter table merchants add column require_api_key_for_carts boolean not null default false;
