import { SANDBOX_CARDS, SANDBOX_CHALLENGE_PATH } from '../checkout/payment-processors/sandbox.js';
import type { Inventory } from './inventory.js';
import { loadDifferences, receiveLoads, type ReceivedLoad } from './page-scan.js';
import { cookieDifferences, HEADER_BASELINES, headerDifferences, PAGE_VARIANTS, type PageVariantId } from './page-variants.js';

/** What a browser received for one page variant: the security headers, the cookies set, and each script and stylesheet's hash. */
export interface ReceivedPage {
  variant: PageVariantId;
  /** Origin and path only: the cart token is a bearer. */
  url: string;
  status: number;
  headers: Record<string, string | null>;
  setCookies: string[];
  loads: ReceivedLoad[];
}

export interface PageWalkDeps {
  checkoutUrl: string;
  /** A new sandbox cart of the canary merchant (a merchant with a brand colour, so every page loads a generated stylesheet too). */
  createCart(): Promise<string>;
  /** The sandbox's one-time code. */
  sandboxOtp: string;
  /** The recovery link of a cart (core/checkout/recovery-token.ts). */
  recoveryLinkOf(cartId: string): string;
  /** The canary merchant's payment link, `/l/<id>`; without it that variant is not walked. */
  paymentLinkPath?: string;
  fetch?: typeof fetch;
}

const SECURITY_HEADERS = [
  'content-security-policy',
  'content-security-policy-report-only',
  'x-frame-options',
  'strict-transport-security',
  'referrer-policy',
  'permissions-policy',
  'x-content-type-options',
  'cross-origin-opener-policy',
  'reporting-endpoints',
  'integrity-policy',
  'integrity-policy-report-only',
];

/** What Chromium sends for a top-level navigation: the page must answer a browser, not a script, as it would a customer. */
const NAVIGATION_HEADERS = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-GB,en;q=0.9',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'none',
  'upgrade-insecure-requests': '1',
};

/**
 * Walks every payment page variant of core/integrity/page-variants.ts as a customer's browser would:
 * a canary cart through contact, code and card, a 3-D Secure challenge, each language, the recovery
 * and payment links, the error pages, and the embedded page's steps in the merchant's frame; for each, what it received (ReceivedPage). The tamper check and
 * the page walk test both compare this with the inventory and the header baseline.
 */
export async function walkPaymentPages(deps: PageWalkDeps): Promise<ReceivedPage[]> {
  const fetchFn = deps.fetch ?? fetch;
  const base = deps.checkoutUrl.replace(/\/$/, '');
  let cookie = '';
  const keep = (res: Response) => {
    const jar = new Map(cookie ? cookie.split('; ').map((pair) => [pair.split('=')[0]!, pair] as const) : []);
    for (const set of res.headers.getSetCookie()) jar.set(set.split('=')[0]!, set.split(';')[0]!);
    cookie = [...jar.values()].join('; ');
  };
  const pages: ReceivedPage[] = [];

  /** Navigations in the merchant's frame: Chromium says so by Sec-Fetch-Dest (web/checkout/embedding.ts). */
  let framed = {};

  async function visit(variant: PageVariantId, path: string): Promise<string> {
    const res = await fetchFn(`${base}${path}`, { headers: { ...NAVIGATION_HEADERS, ...framed, ...(cookie ? { cookie } : {}) } });
    keep(res);
    const html = await res.text();
    const url = new URL(res.url || `${base}${path}`);
    const headers = Object.fromEntries(SECURITY_HEADERS.map((name) => [name, res.headers.get(name)]));
    const assetHeaders = { 'user-agent': NAVIGATION_HEADERS['user-agent'], 'accept-encoding': 'identity' };
    const loads = await receiveLoads(url.href, html, async (asset) => new Uint8Array(await (await fetchFn(asset, { headers: assetHeaders })).arrayBuffer()));
    pages.push({ variant, url: `${url.origin}${url.pathname}`, status: res.status, headers, setCookies: res.headers.getSetCookie(), loads });
    return html;
  }

  async function post(path: string, html: string, cartId: string, fields: Record<string, string>): Promise<Response> {
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const res = await fetchFn(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...NAVIGATION_HEADERS, ...framed, 'content-type': 'application/x-www-form-urlencoded', origin: base, 'sec-fetch-site': 'same-origin', cookie },
      body: new URLSearchParams({ token: cartId, csrf, ...fields }),
    });
    keep(res);
    await res.arrayBuffer();
    return res;
  }

  const cartId = await deps.createCart();
  const page = `/?token=${cartId}`;
  let html = await visit('contact', page);
  await post('/contact', html, cartId, { contact: 'integrity-canary@example.com' });
  html = await visit('code', page);
  await post('/code', html, cartId, { code: deps.sandboxOtp });
  html = await visit('card', page);
  for (const lang of ['fr', 'es', 'de', 'ar'] as const) await visit(`card-${lang}`, `${page}&lang=${lang}`);
  await visit('card', `${page}&lang=en`);
  await visit('recovery-link', new URL(deps.recoveryLinkOf(cartId)).pathname);
  if (deps.paymentLinkPath) await visit('payment-link', deps.paymentLinkPath);
  await visit('not-found', '/?token=AAAAAAAAAAAAAAAAAAAAAAAA');
  html = await visit('card', page);
  await post('/cancel', html, cartId, {});
  await visit('ended', page);

  // A second canary cart, paid with the sandbox's challenge card: the 3-D Secure challenge page.
  const challenged = await deps.createCart();
  cookie = '';
  html = await visit('contact', `/?token=${challenged}`);
  await post('/contact', html, challenged, { contact: 'integrity-canary@example.com' });
  html = await visit('code', `/?token=${challenged}`);
  await post('/code', html, challenged, { code: deps.sandboxOtp });
  html = await visit('card', `/?token=${challenged}`);
  await post('/card', html, challenged, { number: SANDBOX_CARDS.challenge, expiry: '12/30', cvv: '123' });
  const challenge = await untilRedirected(fetchFn, `${base}/status?token=${challenged}`, cookie, SANDBOX_CHALLENGE_PATH);
  await visit('3ds-challenge', challenge);

  // A third, in the merchant's frame (the canary merchant's sandbox allows loopback): its partitioned cookies.
  const embedded = await deps.createCart();
  cookie = '';
  framed = { 'sec-fetch-dest': 'iframe', 'sec-fetch-site': 'cross-site' };
  html = await visit('embedded-contact', `/?token=${embedded}&embed=1`);
  await post('/contact', html, embedded, { contact: 'integrity-canary@example.com' });
  html = await visit('embedded-code', `/?token=${embedded}&embed=1`);
  await post('/code', html, embedded, { code: deps.sandboxOtp });
  await visit('embedded-card', `/?token=${embedded}&embed=1`);
  return pages;
}

/** Polls the page's status until it sends the browser to `path` (the payment is decided by the session, a moment later). */
async function untilRedirected(fetchFn: typeof fetch, statusUrl: string, cookie: string, path: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const res = await fetchFn(statusUrl, { redirect: 'manual', headers: { cookie } });
    await res.arrayBuffer();
    const location = res.headers.get('location') ?? res.headers.get('hx-redirect');
    if (location?.includes(path)) {
      const url = new URL(location, statusUrl);
      return `${url.pathname}${url.search}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the canary payment was not sent to ${path} within 30 s`);
}

/**
 * Every way one received page differs from what is approved: its headers from its framing's baseline,
 * its cookies' flags, what it loaded from the inventory (and a generated file from its recorded hash).
 * HSTS and Secure cookies are required of a production deployment only (plain HTTP on a laptop).
 */
export function pageDifferences(
  page: ReceivedPage,
  approved: { inventory: Inventory; generatedHashes: ReadonlyMap<string, string>; production: boolean },
): string[] {
  const variant = PAGE_VARIANTS.find((v) => v.id === page.variant)!;
  return [
    ...headerDifferences(HEADER_BASELINES[variant.framing], page.headers, { hsts: approved.production, reportingApi: new URL(page.url).protocol === 'https:' }),
    ...cookieDifferences(page.setCookies, { secure: approved.production, framing: variant.framing }),
    ...loadDifferences(approved.inventory, page.loads, approved.generatedHashes),
  ];
}
