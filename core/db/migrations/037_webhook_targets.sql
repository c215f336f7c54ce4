-- Issue 48 (security review), point 8: a failed domain check said what our resolver or socket
-- answered ("getaddrinfo ENOTFOUND db.internal"), and the dashboard showed it. Those words go; the
-- daily re-check writes the category (core/merchants/domain-verification.ts).
update merchant_domains
set check_problem = regexp_replace(check_problem, ' could not be fetched \(.*\); no TXT record', ' could not be fetched; no TXT record')
where check_problem like '% could not be fetched (%';
