import { getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/logger.js';
import { CSRF_FIELD, csrfToken, csrfTokenValid, deriveCsrfKey, newCsrfNonce } from '../csrf.js';
import type { DashboardEnv } from './env.js';
import { DASHBOARD_PATH } from './session.js';
import { forbiddenPage } from './views/layout.js';

export const DASHBOARD_CSRF_COOKIE = 'dashboard_csrf';
const NONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;
/**
 * What the checkout binds a token to (the cart) has no counterpart before sign-in, and the nonce is
 * already per browser: every dashboard form carries HMAC(key, this, nonce).
 */
const BINDING = 'dashboard';

/**
 * web/csrf.ts's signed double-submit tokens for every dashboard form, sign-in included: the nonce in
 * an HttpOnly, SameSite=Strict cookie (issued on the first page), the token in each form's `csrf`
 * field (set as `csrf` on the context for the views). A post without both is refused before its
 * handler runs.
 */
export function dashboardCsrf(deps: { config: Config; logger: Logger }) {
  const key = deriveCsrfKey(deps.config.keyring);
  const secure = deps.config.checkoutBaseUrl.startsWith('https:');
  return createMiddleware<DashboardEnv>(async (c, next) => {
    const existing = getCookie(c, DASHBOARD_CSRF_COOKIE);
    let nonce = existing && NONCE_PATTERN.test(existing) ? existing : undefined;
    if (c.req.method === 'POST') {
      const body = await c.req.parseBody();
      const submitted = typeof body[CSRF_FIELD] === 'string' ? body[CSRF_FIELD] : undefined;
      if (!csrfTokenValid(key, BINDING, nonce, submitted)) {
        deps.logger.warn({ path: c.req.path }, 'dashboard form refused: CSRF token missing or wrong');
        return c.html(forbiddenPage(), 403);
      }
    }
    if (!nonce) {
      nonce = newCsrfNonce();
      setCookie(c, DASHBOARD_CSRF_COOKIE, nonce, { httpOnly: true, secure, sameSite: 'Strict', path: DASHBOARD_PATH, maxAge: 8 * 3600 });
    }
    c.set('csrf', csrfToken(key, BINDING, nonce));
    await next();
  });
}
