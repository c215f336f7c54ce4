-- Issue 48 (security review), point 8: a failed domain check said what our resolver or socket
-- answered ("getaddrinfo ENOTFOUND db.internal"), and the dashboard showed it. Those words go; the
-- daily re-check writes the category (core/merchants/domain-verification.ts).
update merchant_domains
set check_problem = regexp_replace(check_problem, ' could not be fetched \(.*\); no TXT record', ' could not be fetched; no TXT record')
where check_problem like '% could not be fetched (%';

-- Point 4: an operator's disable binds the receiver, not one spelling of its URL. Besides the URL's
-- normalised target (core/merchants/endpoint-target.ts), the binding holds the addresses the host
-- resolved to when the operator disabled the endpoint, so that another name of the same receiver is
-- refused too. Null: not disabled by an operator, or disabled before this migration (then bound by
-- its target alone until an operator disables it again).
alter table webhook_endpoints add column disabled_addresses text[];
