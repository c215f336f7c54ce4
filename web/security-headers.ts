import { createMiddleware } from 'hono/factory';

export type WebEnv = {
  Variables: {
    /** Extra origins a form on this page may land on after a redirect: the merchant's return URLs. */
    formActionOrigins?: string[];
    /** The customer's language (web/i18n): ?lang=, then the checkout_lang cookie, then Accept-Language, then the cart's country. */
    locale?: string;
    /** Whether the request itself named a language we speak; if not, the cart's country may choose. */
    localeAsked?: boolean;
    /**
     * CSP frame-ancestors sources for an embedded page (web/checkout/embedding.ts): the merchant's proven
     * domains. Unset or empty, nothing may frame the answer.
     */
    frameAncestors?: string[];
    /** A response proxied from another server (the Temporal UI for operators) that brings its own headers. */
    ownHeaders?: boolean;
  };
};

/** Where browsers send CSP and integrity violations (web/integrity/csp-report-route.ts). */
export const CSP_REPORT_PATH = '/csp-reports';
/** The Reporting API's name for it, in `Reporting-Endpoints`, the CSP's `report-to` and `Integrity-Policy`'s `endpoints`. */
const REPORT_ENDPOINT = 'csp-endpoint';

/**
 * No inline script or style, nothing framed but the embedded page (by its merchant's proven domains),
 * forms only post back to us (and, after the final redirect, to the merchant's own return URLs).
 * Merchant images (logo, thumbnails) are the one thing loaded from elsewhere.
 */
function contentSecurityPolicy(formActionOrigins: string[], frameAncestors: string[], reportingApi: boolean): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    "connect-src 'self'",
    `form-action 'self'${formActionOrigins.map((o) => ` ${o}`).join('')}`,
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
    "base-uri 'none'",
    // report-uri for browsers without the Reporting API; report-to wins where both are understood.
    `report-uri ${CSP_REPORT_PATH}`,
    ...(reportingApi ? [`report-to ${REPORT_ENDPOINT}`] : []),
  ].join('; ');
}

/**
 * `reportingApi`: the page is served over HTTPS. Chromium delivers Reporting API reports to secure
 * endpoints only, and a `report-to` it cannot use still silences `report-uri`: over plain HTTP (a laptop,
 * the tests) the CSP reports through `report-uri` alone, and Integrity-Policy refuses without reporting.
 */
export function securityHeaders(options: { production: boolean; reportingApi: boolean }) {
  return createMiddleware<WebEnv>(async (c, next) => {
    await next();
    if (c.get('ownHeaders')) return;
    const frameAncestors = c.get('frameAncestors') ?? [];
    c.header('Content-Security-Policy', contentSecurityPolicy(c.get('formActionOrigins') ?? [], frameAncestors, options.reportingApi));
    if (options.reportingApi) c.header('Reporting-Endpoints', `${REPORT_ENDPOINT}="${CSP_REPORT_PATH}"`);
    // Every script of ours carries an integrity attribute (web/checkout/views/layout.ts): one without it is refused (and reported).
    c.header('Integrity-Policy', `blocked-destinations=(script)${options.reportingApi ? `, endpoints=(${REPORT_ENDPOINT})` : ''}`);
    // X-Frame-Options cannot name the merchant's domains: an embedded page relies on frame-ancestors alone.
    if (frameAncestors.length === 0) c.header('X-Frame-Options', 'DENY');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    // Pages and fragments are never stored; only our hashed assets say otherwise (web/assets.ts).
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    if (options.production) c.header('Strict-Transport-Security', 'max-age=63072000; includeSubDomains');
  });
}
