import type { Environment } from '../../core/config.js';
import { isLoopbackHost, type CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { wellKnownUrl } from '../../core/merchants/domain-verification.js';
import { hostWithinDomains } from '../../core/merchants/domains.js';
import { ApiError, type FieldError } from '../errors.js';

/**
 * Where a cart's URLs may point, by environment; runs once the schema has passed and the merchant is
 * known, before anything is written. The schema is the same everywhere and lets loopback hosts
 * through, so a developer can return to http://localhost:3000 in sandbox.
 *
 * Production: no loopback anywhere, and the store URL, logo and both return URLs must be on one of
 * the merchant's registered domains (or a subdomain of one) — the public platformUuid alone must not
 * let anyone dress our page in another store's name and send the customer elsewhere afterwards. And
 * the domain must be verified (core/merchants/domain-verification.ts): registering is self-declared,
 * so a domain the merchant has not proved it controls does not count.
 * Sandbox: any host the schema accepts.
 */
export function assertCartUrlsAllowed(
  request: CreateCartRequest,
  environment: Environment,
  domains: readonly string[],
  verifiedDomains: readonly string[],
): void {
  if (environment === 'sandbox') return;
  const { store, cart } = request.cartObject;
  const onDomain: Array<[string, string | undefined]> = [
    ['cartObject.store.url', store.url],
    ['cartObject.store.logo', store.logo],
    ['cartObject.cart.merchantUrls.successUrl', cart.merchantUrls.successUrl],
    ['cartObject.cart.merchantUrls.failureUrl', cart.merchantUrls.failureUrl],
  ];
  const anyHost: Array<[string, string]> = cart.items.flatMap((item, i): Array<[string, string]> => [
    [`cartObject.cart.items[${i}].url`, item.url],
    [`cartObject.cart.items[${i}].image`, item.image],
  ]);

  const errors: FieldError[] = [];
  const registered = domains.join(', ');
  const unverified = new Set<string>();
  for (const [path, value] of onDomain) {
    if (value === undefined) continue;
    const host = new URL(value).hostname;
    if (isLoopbackHost(host)) errors.push({ path, message: `host ${host} is a loopback host, allowed only in sandbox` });
    else if (domains.length === 0) errors.push({ path, message: `host ${host} cannot be checked: this merchant has no registered domains` });
    else if (!hostWithinDomains(host, domains))
      errors.push({ path, message: `host ${host} is not one of this merchant's registered domains (${registered}) nor a subdomain of one` });
    else if (!hostWithinDomains(host, verifiedDomains)) {
      const owners = domains.filter((d) => hostWithinDomains(host, [d]));
      owners.forEach((d) => unverified.add(d));
      errors.push({
        path,
        message: `host ${host} is on this merchant's registered domain ${owners.join(', ')}, which is not verified: publish the domain's token at ${wellKnownUrl(owners[0]!)} (or in its DNS TXT record), then check it again`,
      });
    }
  }
  for (const [path, value] of anyHost) {
    const host = new URL(value).hostname;
    if (isLoopbackHost(host)) errors.push({ path, message: `host ${host} is a loopback host, allowed only in sandbox` });
  }
  if (errors.length === 0) return;

  const message =
    domains.length === 0
      ? "This merchant has no registered domains, so production refuses every cart. Ask us to register the domains of your store URL, logo and return URLs (the merchant's set-domains)."
      : unverified.size > 0 && errors.every((e) => e.message.includes('which is not verified'))
        ? `The store URL, logo and return URLs must be on this merchant's verified domains; ${[...unverified].join(', ')} ${unverified.size === 1 ? 'is' : 'are'} registered but not verified. Publish each domain's token (shown in the dashboard's Allowed domains and the operator API) at https://<domain>/.well-known/hosted-checkout-verification or in a DNS TXT record at _hosted-checkout.<domain>, then check again (dashboard "Check now", or the merchant's verify-domains).`
        : `The store URL, logo and return URLs must be on this merchant's registered and verified domains (${registered}) or their subdomains; loopback hosts are for sandbox only.`;
  throw new ApiError('VALIDATION_ERROR', message, errors);
}
