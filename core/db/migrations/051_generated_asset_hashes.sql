-- Issue 52, point 1: each generated payment-page asset (a merchant's brand stylesheet,
-- /assets/brand.<rrggbb>.css) with the sha384 it had when first made (core/integrity/generated-assets.ts).
-- The generator is deterministic, so a file made again with another hash means the generator changed.
create table generated_asset_hashes (
  path text primary key check (path ~ '^/assets/'),
  sha384 text not null check (sha384 ~ '^sha384-[A-Za-z0-9+/]{64}$'),
  first_made_at timestamptz not null default now()
);
