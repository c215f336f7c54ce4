import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Role } from '../../core/people/roles.js';
import { endSession, findSession, startSession, type DashboardSession, type SessionCredential } from '../../core/people/sessions.js';

export const SESSION_COOKIE = 'dashboard_session';
export const DASHBOARD_PATH = '/dashboard';
const SESSION_LIFETIME_MS = 8 * 3600 * 1000;

/**
 * The dashboard's sessions (docs/decisions/dashboard.md): the cookie holds 32 random bytes, the
 * dashboard_sessions table their SHA-256 and whom they stand for (core/people/sessions.ts). Sign-out
 * ends the row, so the old cookie is refused at once; so do a role change, a removal and a passkey's
 * deletion, for every session of that person. A bootstrap operator session is bound to a digest of
 * OPERATOR_TOKEN: changing the token ends it.
 */
export function dashboardSessions(config: Pick<Config, 'operatorToken' | 'checkoutBaseUrl' | 'environment'>, db: Db) {
  const operatorTokenDigest = config.operatorToken
    ? createHash('sha256').update(`dashboard-operator-session/v1/${config.operatorToken}`).digest('hex')
    : undefined;
  // Behind a TLS-terminating proxy the request says http: the public address is what the browser sees.
  const secure = config.checkoutBaseUrl.startsWith('https:');
  const cookieOptions = { httpOnly: true, secure, sameSite: 'Strict', path: DASHBOARD_PATH, maxAge: SESSION_LIFETIME_MS / 1000 } as const;

  return {
    operatorTokenDigest,

    async start(c: Context, session: { platformUuid: string | undefined; role: Role; credential: SessionCredential }) {
      const token = await startSession(db, { ...session, lifetimeMs: SESSION_LIFETIME_MS });
      setCookie(c, SESSION_COOKIE, token, cookieOptions);
    },

    /** The live session the cookie names: open, unexpired, its person or key still good, of this environment. */
    async read(c: Context): Promise<DashboardSession | undefined> {
      const session = await findSession(db, getCookie(c, SESSION_COOKIE));
      if (!session) return undefined;
      if (session.platformUuid && session.environment !== config.environment) return undefined;
      if (session.operatorTokenDigest && session.operatorTokenDigest !== operatorTokenDigest) return undefined;
      return session;
    },

    async end(c: Context) {
      const token = getCookie(c, SESSION_COOKIE);
      if (token) await endSession(db, token);
      deleteCookie(c, SESSION_COOKIE, { path: DASHBOARD_PATH, secure });
    },

    /** Forgets the cookie of a session that no longer stands. */
    forget(c: Context) {
      deleteCookie(c, SESSION_COOKIE, { path: DASHBOARD_PATH, secure });
    },
  };
}

export type DashboardSessions = ReturnType<typeof dashboardSessions>;
