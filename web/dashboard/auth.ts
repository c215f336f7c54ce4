import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { authenticateApiKeyId, type KeyedMerchant } from '../../core/merchants/api-keys.js';
import { isHtmx } from '../htmx.js';
import type { DashboardEnv } from './env.js';
import { DASHBOARD_PATH, type DashboardSessions } from './session.js';

const SIGN_IN = `${DASHBOARD_PATH}/sign-in`;
const OPERATOR_SIGN_IN = `${DASHBOARD_PATH}/sign-in/operator`;

/** To the sign-in page: a redirect for a page, HX-Redirect for htmx (a swap would put the sign-in form inside the page). */
function toSignIn(c: Context, to: string) {
  if (isHtmx(c)) {
    c.header('HX-Redirect', to);
    return c.body(null, 401);
  }
  return c.redirect(to, 303);
}

/**
 * Merchant pages: a valid session cookie whose API key is still this merchant's active key, the
 * merchant still active and of this environment (checked on every request, so a rotated or revoked
 * key, or a deactivated merchant, is signed out at once).
 */
export function requireMerchant(deps: { db: Db; config: Config; sessions: DashboardSessions }) {
  return createMiddleware<DashboardEnv>(async (c, next) => {
    const session = deps.sessions.read(c);
    const merchant: KeyedMerchant | undefined =
      session?.kind === 'merchant' ? await authenticateApiKeyId(deps.db, session, deps.config.environment) : undefined;
    if (!merchant) {
      if (session?.kind === 'merchant') deps.sessions.end(c);
      return toSignIn(c, SIGN_IN);
    }
    c.set('merchant', merchant);
    await next();
  });
}

/** Operator pages: a valid operator session, made with the OPERATOR_TOKEN configured now. */
export function requireOperator(deps: { sessions: DashboardSessions }) {
  return createMiddleware<DashboardEnv>(async (c, next) => {
    if (deps.sessions.read(c)?.kind !== 'operator') return toSignIn(c, OPERATOR_SIGN_IN);
    c.set('operator', true);
    await next();
  });
}
