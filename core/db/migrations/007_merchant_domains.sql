-- The host names a merchant's store URL, logo and return URLs may use: an entry allows that host and
-- its subdomains. Stored as the URL parser gives a host name (lower case, IDNA/punycode). Production
-- create-cart refuses URLs outside these; sandbox does not look at them.
create table merchant_domains (
  platform_uuid uuid not null references merchants(platform_uuid),
  domain text not null check (domain = lower(domain)),
  created_at timestamptz not null default now(),
  primary key (platform_uuid, domain)
);
