-- Proof that a merchant controls each domain it registers (core/merchants/domain-verification.ts): a
-- token per merchant and domain, published at https://<domain>/.well-known/hosted-checkout-verification
-- or in a DNS TXT record at _hosted-checkout.<domain>. Production create-cart holds cart URLs to the
-- verified domains only; the worker re-checks every production domain daily. Domains registered
-- before this migration get a token and start unverified: a production merchant publishes it, then
-- asks for a check (docs/going-live.md). gen_random_uuid draws from the strong random source.
alter table merchant_domains
  add column verification_token text not null default 'hcv-' || replace(gen_random_uuid()::text, '-', ''),
  add column verified_at timestamptz,
  add column verified_by text check (verified_by in ('well-known', 'dns-txt')),
  add column checked_at timestamptz,
  add column check_problem text;
