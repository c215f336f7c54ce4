import { z } from 'zod';

/**
 * The domains a merchant registers: the hosts its store URL, logo and return URLs may use. An entry
 * `shop.example` allows that host and every subdomain (`www.shop.example`), never a look-alike
 * (`evilshop.example`). Hosts are compared as the WHATWG URL parser gives them: lower case, IDNA
 * (punycode), so `Shop.Example` and `bücher.example` are stored as `shop.example` and
 * `xn--bcher-kva.example`, the same form a URL's hostname takes.
 */

export const MAX_DOMAINS = 50;

/** The stored form of a domain entry, or a problem: a plain host name, no scheme, path, port or wildcard. */
export function normalizeDomain(value: string): { domain: string } | { problem: string } {
  if (value.trim() !== value || value === '') return { problem: 'must be a host name without spaces, e.g. shop.example' };
  if (value.includes('*')) return { problem: 'must not be a wildcard: shop.example already allows its subdomains' };
  if (/[/:?#@\\[\]\s]/.test(value)) return { problem: 'must be a plain host name, without scheme, port or path, e.g. shop.example' };
  const parsed = URL.parse(`https://${value}/`);
  if (!parsed || parsed.port !== '' || parsed.pathname !== '/') return { problem: 'is not a valid host name' };
  const host = parsed.hostname;
  if (!z.regexes.domain.test(host)) return { problem: 'must be a public host name with a top-level domain, e.g. shop.example (not an IP address)' };
  if (host === 'localhost' || host.endsWith('.localhost')) return { problem: 'must not be a loopback host' };
  return { domain: host };
}

/** Whether a URL's hostname is a registered domain or a subdomain of one. */
export function hostWithinDomains(hostname: string, domains: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}
