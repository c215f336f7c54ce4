import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { getCookie } from 'hono/cookie';
import { isOperatorRole } from '../../core/people/roles.js';
import { isHtmx } from '../htmx.js';
import { accessRow, allows } from './access.js';
import type { DashboardEnv } from './env.js';
import { DASHBOARD_PATH, SESSION_COOKIE, type DashboardSessions } from './session.js';
import { notFoundPage, refusedPage } from './views/layout.js';

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
 * THE dashboard guard, in front of every route (web/dashboard/routes.ts): the request's row of the role
 * table (web/dashboard/access.ts) says who may open it. No row: 404, whatever is mounted. A row open to
 * anyone: through. Otherwise the session (checked against the table on every request, so a sign-out,
 * a removal or a role change counts at once) must have one of the row's roles: without a session, or
 * with one of the other side (a merchant's at an operator's page or the reverse), to that side's
 * sign-in; with a role the row does not list, a 403 page that says so.
 */
export function dashboardGuard(deps: { sessions: DashboardSessions }) {
  return createMiddleware<DashboardEnv>(async (c, next) => {
    const row = accessRow(c.req.method, c.req.path.slice(DASHBOARD_PATH.length) || '/');
    if (!row) return c.html(notFoundPage(), 404);
    if (row.access === 'anyone') return next();
    const operatorsOnly = row.access.every(isOperatorRole);
    const session = await deps.sessions.read(c);
    const sameSide = session && row.access.some((role) => isOperatorRole(role) === isOperatorRole(session.role));
    if (!session || !sameSide) {
      if (!session && getCookie(c, SESSION_COOKIE)) deps.sessions.forget(c);
      return toSignIn(c, operatorsOnly ? OPERATOR_SIGN_IN : SIGN_IN);
    }
    if (!allows(row.access, session.role)) return c.html(refusedPage(session.role, row.what), 403);
    c.set('session', session);
    if (session.platformUuid && session.environment) c.set('merchant', { platformUuid: session.platformUuid, environment: session.environment });
    else c.set('operator', true);
    await next();
  });
}
