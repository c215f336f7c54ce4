import { createMiddleware } from 'hono/factory';

/** Two years, subdomains too: the page's value (web/security-headers.ts). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';

/**
 * In production the API is https only, like the page: every answer (refusals and errors included, so
 * set after the handlers and the error handler ran) tells clients never to use plain http for it again.
 * A sandbox API may run on http://localhost, where the header would only get in the way.
 */
export function strictTransportSecurity(options: { production: boolean }) {
  return createMiddleware(async (c, next) => {
    await next();
    if (options.production) c.header('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  });
}
