import type { Context } from 'hono';
import type { CookieOptions } from 'hono/utils/cookie';
import { selectVerifiedDomains } from '../../core/merchants/merchant-store.js';
import type { Db } from '../../core/db/client.js';
import type { WebEnv } from '../security-headers.js';

/**
 * The embedded checkout (docs/checkout-page.md, "Embedded checkout"; docs/decisions/security.md,
 * "Framing"): the same page inside the merchant's own page, framed only by the merchant's proven domains.
 */

/** The header the embedded page's htmx requests carry (views/layout.ts): a fetch says nothing of where its page is shown. */
export const EMBED_HEADER = 'X-Checkout-Embed';

/**
 * Whether this request is the embedded page's: its first load names `embed=1`; every later navigation in
 * the frame (a form posted without htmx, the bank's challenge and return, a language link) says so by
 * `Sec-Fetch-Dest: iframe`, which no page can forge; its htmx requests by the header above. Being
 * embedded only widens framing to the merchant's proven domains and partitions the cookies: nothing it
 * unlocks is worth forging.
 */
export function isEmbedded(c: Context): boolean {
  return c.req.query('embed') === '1' || c.req.header('Sec-Fetch-Dest') === 'iframe' || c.req.header(EMBED_HEADER) === '1';
}

/** Loopback, where a sandbox merchant builds its store before it has a domain to prove. */
const SANDBOX_HOSTS = ['localhost', '127.0.0.1'];

/**
 * CSP `frame-ancestors` sources for the merchant's verified domains, each with its subdomains, as a
 * verification covers them. No scheme: on an https page a bare host matches https alone. Production
 * takes the default port only; sandbox any port, and loopback besides. Never `*`: no domain, no framing.
 */
export function frameAncestorSources(verifiedDomains: readonly string[], sandbox: boolean): string[] {
  const hosts = verifiedDomains.flatMap((domain) => [domain, `*.${domain}`]);
  return sandbox ? [...hosts, ...SANDBOX_HOSTS].map((host) => `${host}:*`) : hosts;
}

/** Lets this answer be framed by the merchant's proven domains (security-headers.ts writes the header). */
export async function allowFraming(c: Context<WebEnv>, db: Db, platformUuid: string, sandbox: boolean): Promise<void> {
  c.set('frameAncestors', frameAncestorSources(await selectVerifiedDomains(db, platformUuid), sandbox));
}

/**
 * A cookie the embedded page sets: a frame on the merchant's site is a third party, where only a
 * `Secure; SameSite=None` cookie arrives, and `Partitioned` (CHIPS) keys it to that top-level site, so
 * nothing is shared with our top-level page or another merchant's. Chromium keeps Secure cookies over
 * http on localhost and 127.0.0.1 alike (test/browser/embedded-checkout.test.ts runs there).
 */
export const FRAMED_COOKIE: CookieOptions = { secure: true, sameSite: 'None', partitioned: true };
