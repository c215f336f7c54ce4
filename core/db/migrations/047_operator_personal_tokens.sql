-- An operator's personal tokens for the operator API and the codec (docs/dashboard.md): made by the
-- operator for themselves on the dashboard, shown once, named, revocable. The token is 32 random bytes;
-- only its SHA-256 is kept, with a short prefix to tell tokens apart in the list. A token acts as its
-- operator, with the operator's role now: removing the operator revokes every token of theirs.
create table operator_personal_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references dashboard_users(id),
  name text not null check (length(name) between 1 and 60),
  token_hash bytea not null unique check (length(token_hash) = 32),
  prefix text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index operator_personal_tokens_of_user on operator_personal_tokens (user_id) where revoked_at is null;
