import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../core/crypto.js';
import { dashboardSessions, SESSION_COOKIE, type DashboardSession } from '../../web/dashboard/session.js';

const keyring = createKeyring([{ id: 'k1', key: randomBytes(32) }]);
const config = (operatorToken: string, checkoutBaseUrl = 'http://localhost:3001') => ({ keyring, operatorToken, checkoutBaseUrl });
const merchant: DashboardSession = { kind: 'merchant', platformUuid: '0b8f4c1e-3a8e-4c55-9d0c-5a1f2e3d4c5b', keyId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' };

/** The cookie a session start sets, through a real Hono context. */
async function started(sessions: ReturnType<typeof dashboardSessions>, session: DashboardSession) {
  const app = new Hono().get('/', (c) => {
    sessions.start(c, session);
    return c.body(null, 204);
  });
  return (await app.request('/')).headers.get('set-cookie')!;
}

/** What a request carrying this cookie value is read as. */
async function read(sessions: ReturnType<typeof dashboardSessions>, value: string) {
  let found: DashboardSession | undefined;
  const app = new Hono().get('/', (c) => {
    found = sessions.read(c);
    return c.body(null, 204);
  });
  await app.request('/', { headers: { cookie: `${SESSION_COOKIE}=${value}` } });
  return found;
}

const valueOf = (setCookie: string) => setCookie.split(';')[0]!.slice(SESSION_COOKIE.length + 1);

describe('dashboard session cookies', () => {
  it('are HttpOnly, SameSite=Strict, scoped to /dashboard, and Secure behind an https address', async () => {
    const plain = await started(dashboardSessions(config('operator-token-0123456789abcdef')), merchant);
    expect(plain).toMatch(/Path=\/dashboard/);
    expect(plain).toMatch(/HttpOnly/);
    expect(plain).toMatch(/SameSite=Strict/);
    expect(plain).not.toMatch(/Secure/);
    expect(await started(dashboardSessions(config('operator-token-0123456789abcdef', 'https://pay.example')), merchant)).toMatch(/Secure/);
  });

  it('read back as the session they were made for, and a merchant cookie never as an operator', async () => {
    const sessions = dashboardSessions(config('operator-token-0123456789abcdef'));
    expect(await read(sessions, valueOf(await started(sessions, merchant)))).toEqual(merchant);
    expect(await read(sessions, valueOf(await started(sessions, { kind: 'operator' })))).toEqual({ kind: 'operator' });
    const forged = valueOf(await started(sessions, merchant)).replace(/^m\./, 'op.');
    expect(await read(sessions, forged)).toBeUndefined();
  });

  it('end every operator session when OPERATOR_TOKEN changes, and keep merchant ones', async () => {
    const before = dashboardSessions(config('operator-token-0123456789abcdef'));
    const after = dashboardSessions(config('another-operator-token-0123456789'));
    expect(await read(after, valueOf(await started(before, { kind: 'operator' })))).toBeUndefined();
    expect(await read(after, valueOf(await started(before, merchant)))).toEqual(merchant);
  });

  it('are not sign-in links, and sign-in links are not sessions', async () => {
    const sessions = dashboardSessions(config('operator-token-0123456789abcdef'));
    const link = new URL(sessions.signInLink(merchant.platformUuid, merchant.keyId).url);
    expect(link.pathname).toBe('/dashboard/link');
    const token = link.searchParams.get('token')!;
    expect(sessions.readSignInLink(token)).toEqual({ platformUuid: merchant.platformUuid, keyId: merchant.keyId });
    expect(await read(sessions, token)).toBeUndefined();
    expect(await read(sessions, `m.${token}`)).toBeUndefined();
    expect(sessions.readSignInLink(valueOf(await started(sessions, merchant)))).toBeUndefined();
  });
});
