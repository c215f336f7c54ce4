/**
 * The payment pages in scope of PCI DSS 6.4.3 and 11.6.1, one line per variant, and the approved
 * security headers of each kind of page (the baseline the tamper check and the page walk compare with).
 * A new variant is one line in PAGE_VARIANTS; a page that frames differently (an embedded page) names
 * its own baseline, one entry in HEADER_BASELINES.
 */

/**
 * How a page may be shown: a top-level page the merchant redirects to, or the embedded page framed by
 * the merchant's proven domains (web/checkout/embedding.ts).
 */
export type Framing = 'redirect' | 'embedded';

export interface PageVariant {
  /** Stable id, used in runs, alerts and the evidence report. */
  id: string;
  /** What the page is, in words an assessor reads. */
  description: string;
  framing: Framing;
}

export const PAGE_VARIANTS = [
  { id: 'contact', description: 'Contact step: the customer gives an email or phone for a one-time code', framing: 'redirect' },
  { id: 'code', description: 'Code step: the customer types the one-time code', framing: 'redirect' },
  { id: 'card', description: 'Card step: the customer types the card number, expiry and CVV', framing: 'redirect' },
  { id: 'card-fr', description: 'Card step in French', framing: 'redirect' },
  { id: 'card-es', description: 'Card step in Spanish', framing: 'redirect' },
  { id: 'card-de', description: 'Card step in German', framing: 'redirect' },
  { id: 'card-ar', description: 'Card step in Arabic (right to left)', framing: 'redirect' },
  { id: '3ds-challenge', description: "Sandbox 3-D Secure challenge page (the bank page in production is the issuer's)", framing: 'redirect' },
  { id: 'recovery-link', description: 'Abandoned-cart recovery link (/r/<token>) of a session that is not abandoned: its message page', framing: 'redirect' },
  { id: 'payment-link', description: "Payment link visit (/l/<id>): the new session's first page", framing: 'redirect' },
  { id: 'not-found', description: 'Error page: unknown cart token', framing: 'redirect' },
  { id: 'ended', description: 'Error page: the session has ended (here, cancelled by the customer)', framing: 'redirect' },
  { id: 'embedded-contact', description: "Embedded checkout (?embed=1, in the merchant's frame): contact step", framing: 'embedded' },
  { id: 'embedded-code', description: "Embedded checkout (?embed=1, in the merchant's frame): code step", framing: 'embedded' },
  { id: 'embedded-card', description: "Embedded checkout (?embed=1, in the merchant's frame): card step", framing: 'embedded' },
] as const satisfies readonly PageVariant[];

export type PageVariantId = (typeof PAGE_VARIANTS)[number]['id'];

/**
 * The approved value of each security-impacting header, by framing. The CSP is compared directive by
 * directive: `form-action` must start with `'self'` (a cart adds its merchant's return origins); a
 * directive whose value varies by merchant is approved as a rule (a RegExp) rather than a value.
 */
export interface HeaderBaseline {
  csp: Record<string, string | RegExp>;
  headers: Record<string, string | null>;
}

const REDIRECT_CSP = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' https: data:",
  'connect-src': "'self'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
  'base-uri': "'none'",
  'report-uri': '/csp-reports',
  'report-to': 'csp-endpoint',
};
const REDIRECT_HEADERS = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  'cross-origin-opener-policy': 'same-origin',
  'reporting-endpoints': 'csp-endpoint="/csp-reports"',
  'integrity-policy': 'blocked-destinations=(script), endpoints=(csp-endpoint)',
};

/**
 * One frame-ancestors source as web/checkout/embedding.ts writes it: a host, or every subdomain of one,
 * with an optional port (sandbox: any); never a scheme alone, never `*`, never a path.
 */
const HOST_SOURCE = String.raw`(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d+|\*))?`;

export const HEADER_BASELINES: Record<Framing, HeaderBaseline> = {
  redirect: { csp: REDIRECT_CSP, headers: REDIRECT_HEADERS },
  // Framed by the merchant's proven domains alone, which differ by merchant: a list of host sources.
  // X-Frame-Options cannot name them, so the embedded page sends none (web/security-headers.ts).
  embedded: {
    csp: { ...REDIRECT_CSP, 'frame-ancestors': new RegExp(`^${HOST_SOURCE}(?: ${HOST_SOURCE})*$`) },
    headers: { ...REDIRECT_HEADERS, 'x-frame-options': null },
  },
};

/** `default-src 'none'; script-src 'self'` → { 'default-src': "'none'", … }. */
export function cspDirectives(policy: string): Record<string, string> {
  const directives: Record<string, string> = {};
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) directives[name.toLowerCase()] = values.join(' ');
  }
  return directives;
}

/**
 * The baseline of a page served over plain HTTP, where browsers deliver no Reporting API report
 * (web/security-headers.ts): no `report-to`, no `Reporting-Endpoints`, Integrity-Policy without endpoints.
 */
function withoutReportingApi(baseline: HeaderBaseline): HeaderBaseline {
  const { 'report-to': _reportTo, ...csp } = baseline.csp;
  const integrity = baseline.headers['integrity-policy']?.replace(/, endpoints=\([^)]*\)$/, '') ?? null;
  return { csp, headers: { ...baseline.headers, 'reporting-endpoints': null, 'integrity-policy': integrity } };
}

/**
 * Every way `received` (lower-cased header names) differs from the baseline, in words. HSTS is checked
 * where the deployment is production; `reportingApi` says the page is served over HTTPS.
 */
export function headerDifferences(
  approved: HeaderBaseline,
  received: Record<string, string | null>,
  options: { hsts: boolean; reportingApi: boolean },
): string[] {
  const baseline = options.reportingApi ? approved : withoutReportingApi(approved);
  const differences: string[] = [];
  const csp = received['content-security-policy'];
  if (!csp) differences.push('Content-Security-Policy missing');
  else {
    const got = cspDirectives(csp);
    for (const [name, value] of Object.entries(baseline.csp)) {
      const actual = got[name];
      const matches =
        value instanceof RegExp
          ? actual !== undefined && value.test(actual)
          : name === 'form-action'
            ? actual !== undefined && `${actual} `.startsWith(`${value} `)
            : actual === value;
      const expected = value instanceof RegExp ? `a value matching ${value}` : `"${value}"`;
      if (!matches) differences.push(`CSP ${name}: expected ${expected}, received ${actual === undefined ? 'nothing' : `"${actual}"`}`);
    }
    for (const name of Object.keys(got)) if (!(name in baseline.csp)) differences.push(`CSP ${name}: not in the baseline ("${got[name]}")`);
  }
  for (const [name, value] of Object.entries(baseline.headers)) {
    const actual = received[name] ?? null;
    if (actual !== value)
      differences.push(`${name}: expected ${value === null ? 'nothing' : `"${value}"`}, received ${actual === null ? 'nothing' : `"${actual}"`}`);
  }
  const hsts = received['strict-transport-security'] ?? null;
  if (options.hsts && !/max-age=(\d+)/.test(hsts ?? '')) differences.push('strict-transport-security missing');
  return differences;
}

/**
 * A cookie's flags a payment page must set: HttpOnly, Secure in production, SameSite Lax or Strict.
 * The embedded page, a third party in the merchant's frame, may instead set `Secure; SameSite=None;
 * Partitioned` (CHIPS, web/checkout/embedding.ts): all three, or the cookie is shared or lost.
 */
export function cookieDifferences(setCookies: string[], options: { secure: boolean; framing?: Framing }): string[] {
  return setCookies.flatMap((cookie) => {
    const name = cookie.split('=')[0]!.trim();
    const flags = `${cookie.toLowerCase()};`;
    const secure = /; secure;/.test(flags);
    const partitioned = options.framing === 'embedded' && /; samesite=none;/.test(flags);
    return [
      ...(flags.includes('; httponly;') ? [] : [`cookie ${name}: not HttpOnly`]),
      ...(!(options.secure || partitioned) || secure ? [] : [`cookie ${name}: not Secure`]),
      ...(/; samesite=(lax|strict);/.test(flags) || partitioned
        ? []
        : [`cookie ${name}: no SameSite=Lax or Strict${options.framing === 'embedded' ? ', nor SameSite=None partitioned' : ''}`]),
      ...(!partitioned || /; partitioned;/.test(flags) ? [] : [`cookie ${name}: SameSite=None but not Partitioned`]),
    ];
  });
}
