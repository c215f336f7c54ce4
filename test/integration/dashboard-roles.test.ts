import { describe, expect, it } from 'vitest';
import { deriveCsrfKey, csrfToken } from '../../web/csrf.js';
import { createWebApp } from '../../web/app.js';
import { ACCESS, type AccessRow } from '../../web/dashboard/access.js';
import { DASHBOARD_CSRF_COOKIE } from '../../web/dashboard/csrf.js';
import { SESSION_COOKIE } from '../../web/dashboard/session.js';
import { ROLES, type Role } from '../../core/people/roles.js';
import { addPerson, sessionFor } from '../support/dashboard-people.js';
import { useTestStack } from '../support/test-stack.js';

const NONCE = 'rolewalkrolewalkrolewa';
const PARAM = '00000000-0000-4000-8000-000000000000';

/**
 * The routes the web app ACTUALLY mounts under /dashboard (Hono's `app.routes`), handlers only: a
 * middleware takes (c, next), a handler only c (a sub-app with its own error handler wraps each
 * handler, keeping the original under __COMPOSED_HANDLER).
 */
function mountedRoutes(app: ReturnType<typeof createWebApp>) {
  const seen = new Set<string>();
  return app.routes.flatMap((route) => {
    const original = (route.handler as { __COMPOSED_HANDLER?: (...args: unknown[]) => unknown }).__COMPOSED_HANDLER ?? route.handler;
    if (!route.path.startsWith('/dashboard') || original.length >= 2) return [];
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ method: route.method, path: route.path.slice('/dashboard'.length) || '/' }];
  });
}

describe('every mounted dashboard route, with every role, as the role table says', () => {
  const stack = useTestStack();

  it('has a row for each mounted route, and walks each with every role and with none', async () => {
    // An upstream nobody answers: the Temporal UI's routes are mounted, and a permitted request gets past the guard to fail there.
    const app = createWebApp({ ...stack, config: { ...stack.config, temporalUiUpstream: 'http://127.0.0.1:9' } });
    const mounted = mountedRoutes(app);
    expect(mounted.length).toBeGreaterThan(40);

    const rowOf = (route: { method: string; path: string }): AccessRow | undefined =>
      ACCESS.find((row) => row.path === route.path && row.method === route.method);
    const missing = mounted.filter((route) => !rowOf(route)).map((route) => `${route.method} ${route.path}`);
    expect(missing, 'mounted routes without a row in web/dashboard/access.ts').toEqual([]);
    const stale = ACCESS.filter((row) => !mounted.some((route) => rowOf(route) === row)).map((row) => `${row.method} ${row.path}`);
    expect(stale, 'rows of web/dashboard/access.ts for routes nobody mounts').toEqual([]);

    const merchant = await stack.createMerchant();
    const people = new Map<Role, Awaited<ReturnType<typeof addPerson>>>();
    for (const role of ROLES) people.set(role, await addPerson(stack.db, role.startsWith('operator') ? null : merchant.platformUuid, role));
    const csrf = csrfToken(deriveCsrfKey(stack.config.keyring), 'dashboard', NONCE);

    const outcomes: string[] = [];
    for (const route of mounted) {
      const row = rowOf(route)!;
      const path = `/dashboard${route.path.replace(/:[a-zA-Z]+/g, PARAM).replace(/\*$/, 'walked')}`.replace('/dashboard/walked', '/dashboard/nothing-here');
      const method = route.method === 'ALL' ? 'GET' : route.method;
      for (const role of [undefined, ...ROLES]) {
        const cookies = [`${DASHBOARD_CSRF_COOKIE}=${NONCE}`];
        if (role) cookies.push(`${SESSION_COOKIE}=${await sessionFor(stack.db, people.get(role)!)}`);
        const response = await app.request(`${stack.checkoutUrl}${path}`, {
          method,
          headers: {
            cookie: cookies.join('; '),
            origin: stack.checkoutUrl,
            ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          ...(method === 'POST' ? { body: new URLSearchParams({ csrf }).toString() } : {}),
        });
        const body = await response.text();
        const location = response.headers.get('location') ?? '';
        const toSignIn = response.status === 303 && /^\/dashboard\/sign-in(\/operator)?$/.test(location);
        const forbidden = response.status === 403 && body.includes('Not allowed');
        const allowed = row.access === 'anyone' || (role !== undefined && row.access.includes(role));
        const refused = toSignIn || forbidden;
        // The sign-in routes' own redirects (sign-out, "/") are theirs, not the guard's.
        const expected = allowed ? (row.access === 'anyone' ? true : !refused) : refused;
        if (!expected) outcomes.push(`${method} ${path} as ${role ?? 'nobody'}: ${response.status} ${location} (table: ${JSON.stringify(row.access)})`);
        if (!allowed && role && row.access !== 'anyone') {
          const sameSide = row.access.some((r) => r.startsWith('operator')) === role.startsWith('operator');
          if (sameSide && !forbidden) outcomes.push(`${method} ${path} as ${role}: expected the 403 page in words, got ${response.status}`);
        }
      }
    }
    expect(outcomes).toEqual([]);
  }, 300_000);

  it('refuses the bootstrap sign-ins (API key, CLI link, OPERATOR_TOKEN) once DASHBOARD_BOOTSTRAP_SIGN_IN is false', async () => {
    const merchant = await stack.createMerchant();
    const csrf = csrfToken(deriveCsrfKey(stack.config.keyring), 'dashboard', NONCE);
    const post = (app: ReturnType<typeof createWebApp>, path: string, form: Record<string, string>) =>
      app.request(`${stack.checkoutUrl}/dashboard${path}`, {
        method: 'POST',
        headers: { cookie: `${DASHBOARD_CSRF_COOKIE}=${NONCE}`, origin: stack.checkoutUrl, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, ...form }).toString(),
      });
    const on = createWebApp(stack);
    expect((await post(on, '/sign-in', { apiKey: merchant.apiKey })).status).toBe(303);
    const off = createWebApp({ ...stack, config: { ...stack.config, dashboardBootstrapSignIn: false } });
    for (const [path, form] of [
      ['/sign-in', { apiKey: merchant.apiKey }],
      ['/sign-in/operator', { operatorToken: stack.config.operatorToken! }],
      ['/link', { token: 'anything' }],
    ] as const) {
      const refused = await post(off, path, form);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('switched off on this deployment');
      expect(refused.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    }
  });
});
