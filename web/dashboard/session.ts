import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Config } from '../../core/config.js';
import { signedTokens } from '../../core/signed-token.js';

export const SESSION_COOKIE = 'dashboard_session';
export const DASHBOARD_PATH = '/dashboard';
const SESSION_LIFETIME_MS = 8 * 3600 * 1000;
const SIGN_IN_LINK_LIFETIME_MS = 10 * 60 * 1000;

/** Who a session cookie stands for: a merchant through one API key (by id), or an operator. */
export type DashboardSession = { kind: 'merchant'; platformUuid: string; keyId: string } | { kind: 'operator' };

/**
 * The dashboard's session cookie: `m.<platformUuid>.<API key id>.<expiry>.<HMAC>` or
 * `op.<expiry>.<HMAC>` (core/signed-token.ts), never a key or the operator token. A merchant session
 * names its key so that rotating or revoking the key ends it (web/dashboard/auth.ts checks on every
 * request). The operator's signing key is derived with a digest of OPERATOR_TOKEN: changing the token
 * ends every operator session.
 */
export function dashboardSessions(config: Pick<Config, 'keyring' | 'operatorToken' | 'checkoutBaseUrl'>) {
  const merchant = signedTokens(config.keyring.deriveKey('dashboard-session/v1'), SESSION_LIFETIME_MS);
  const operatorTokenDigest = createHash('sha256')
    .update(config.operatorToken ?? '')
    .digest('hex');
  const operator = signedTokens(config.keyring.deriveKey(`dashboard-operator-session/v1/${operatorTokenDigest}`), SESSION_LIFETIME_MS);
  const links = signedTokens(config.keyring.deriveKey('dashboard-sign-in-link/v1'), SIGN_IN_LINK_LIFETIME_MS);
  // Behind a TLS-terminating proxy the request says http: the public address is what the browser sees.
  const secure = config.checkoutBaseUrl.startsWith('https:');
  const cookieOptions = { httpOnly: true, secure, sameSite: 'Strict', path: DASHBOARD_PATH, maxAge: SESSION_LIFETIME_MS / 1000 } as const;

  return {
    start(c: Context, session: DashboardSession) {
      const value = session.kind === 'operator' ? operator.issue(['op']) : merchant.issue(['m', session.platformUuid, session.keyId]);
      setCookie(c, SESSION_COOKIE, value, cookieOptions);
    },

    /** The session the cookie proves, before any check of the key it names. */
    read(c: Context): DashboardSession | undefined {
      const value = getCookie(c, SESSION_COOKIE);
      const m = merchant.verify(value);
      if (m?.fields.length === 3 && m.fields[0] === 'm') return { kind: 'merchant', platformUuid: m.fields[1]!, keyId: m.fields[2]! };
      const op = config.operatorToken ? operator.verify(value) : undefined;
      if (op?.fields.length === 1 && op.fields[0] === 'op') return { kind: 'operator' };
      return undefined;
    },

    end(c: Context) {
      deleteCookie(c, SESSION_COOKIE, { path: DASHBOARD_PATH, secure });
    },

    /** A sign-in link for the CLI to print: good for ten minutes, for this merchant through its current key, for nothing else. */
    signInLink(platformUuid: string, keyId: string): { url: string; expiresAt: string } {
      const token = links.issue([platformUuid, keyId]);
      const expiresAt = new Date(links.verify(token)!.expiresAt).toISOString();
      return { url: `${config.checkoutBaseUrl}${DASHBOARD_PATH}/link?token=${token}`, expiresAt };
    },

    readSignInLink(token: string | undefined): { platformUuid: string; keyId: string } | undefined {
      const link = links.verify(token);
      if (link?.fields.length !== 2) return undefined;
      return { platformUuid: link.fields[0]!, keyId: link.fields[1]! };
    },
  };
}

export type DashboardSessions = ReturnType<typeof dashboardSessions>;
