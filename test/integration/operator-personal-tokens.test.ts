import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { deriveCsrfKey, csrfToken } from '../../web/csrf.js';
import { DASHBOARD_CSRF_COOKIE } from '../../web/dashboard/csrf.js';
import { SESSION_COOKIE } from '../../web/dashboard/session.js';
import type { Person } from '../../core/people/people.js';
import { addPerson, sessionFor } from '../support/dashboard-people.js';
import { useTestStack } from '../support/test-stack.js';

const NONCE = 'opertokenopertokenoper';

describe("an operator's personal tokens: made on the dashboard, taken by the operator API and the codec as that operator", () => {
  // Each call from an address of its own: refusals here must not use up 127.0.0.1's allowance of wrong tokens.
  const stack = useTestStack({ TRUST_PROXY: '1' });
  const fresh = () => `203.0.113.${Math.floor(Math.random() * 254) + 1}, 198.19.${Math.floor(Math.random() * 255)}.${Math.floor(Math.random() * 254) + 1}`;
  const api = (path: string, authorization: string, init: { method?: string; body?: string } = {}) =>
    fetch(`${stack.apiUrl}${path}`, {
      method: init.method ?? (path.startsWith('/codec') ? 'POST' : 'GET'),
      headers: { authorization, 'x-forwarded-for': fresh(), 'content-type': 'application/json' },
      ...(init.body !== undefined ? { body: init.body } : path.startsWith('/codec') ? { body: '{"payloads":[]}' } : {}),
    });

  /** A dashboard form post (or page) as a signed-in person, through the running web server. */
  async function dashboard(person: Person, path: string, form?: Record<string, string>) {
    const csrf = csrfToken(deriveCsrfKey(stack.config.keyring), 'dashboard', NONCE);
    return fetch(`${stack.checkoutUrl}/dashboard${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: `${DASHBOARD_CSRF_COOKIE}=${NONCE}; ${SESSION_COOKIE}=${await sessionFor(stack.db, person)}`,
        origin: stack.checkoutUrl,
        'x-forwarded-for': fresh(),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams({ csrf, ...form }).toString() } : {}),
    });
  }

  async function makeToken(person: Person, name: string): Promise<{ token: string; id: string }> {
    const res = await dashboard(person, '/operator/tokens', { name });
    expect(res.status).toBe(201);
    const token = /data-new-operator-token>(opt_[A-Za-z0-9_-]+)</.exec(await res.text())?.[1];
    expect(token).toBeDefined();
    const [row] = await stack.db<{ id: string }[]>`select id from operator_personal_tokens where user_id = ${person.id} and name = ${name}`;
    return { token: token!, id: row!.id };
  }

  it('is shown once, kept hashed, works on /operator and /codec as its operator in the audit log, and is refused within a second of its revocation', async () => {
    const operator = await addPerson(stack.db, null, 'operator');
    const { token, id } = await makeToken(operator, 'laptop CLI');

    // Stored as a SHA-256 only; the list shows the name and a prefix, never the token again.
    const [stored] = await stack.db<{ row: string }[]>`select to_json(t)::text as row from operator_personal_tokens t where id = ${id}`;
    expect(stored!.row).not.toContain(token);
    expect(stored!.row).not.toContain(token.slice(10));
    const list = await (await dashboard(operator, '/operator/tokens')).text();
    expect(list).toContain('laptop CLI');
    expect(list).not.toContain(token);

    const bearer = `Bearer ${token}`;
    expect((await api('/operator/merchants', bearer)).status).toBe(200);
    expect((await api('/codec/decode', bearer)).status).toBe(200);
    expect((await api('/codec/encode', bearer)).status).toBe(200);
    // No cookie that would outlive the token.
    expect((await api('/codec/session', bearer)).status).toBe(403);

    const created = await api('/operator/merchants', bearer, {
      method: 'POST',
      body: JSON.stringify({ name: 'Made with a personal token', webhookUrl: 'https://merchant.example/hooks' }),
    });
    expect(created.status).toBe(201);
    const entryId = created.headers.get('audit-entry-id');
    const [entry] = await stack.db<{ actor_type: string; actor_id: string; actor_label: string; action: string }[]>`
      select actor_type, actor_id, actor_label, action from audit_log where id = ${entryId}`;
    expect(entry).toEqual({ actor_type: 'user', actor_id: operator.id, actor_label: operator.email, action: 'merchant.register' });

    const revoked = await dashboard(operator, `/operator/tokens/${id}/revoke`, {});
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    expect((await api('/operator/merchants', bearer)).status).toBe(401);
    expect((await api('/codec/decode', bearer)).status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    const [audited] = await stack.db<{ n: number }[]>`
      select count(*)::int as n from audit_log where actor_id = ${operator.id} and action in ('operator_token.create', 'operator_token.revoke')`;
    expect(audited!.n).toBe(2);
  });

  it("is refused once its operator is removed, and one operator cannot revoke another's", async () => {
    const admin = await addPerson(stack.db, null, 'operator_admin');
    const operator = await addPerson(stack.db, null, 'operator');
    const { token, id } = await makeToken(operator, 'ci');
    expect((await api('/operator/merchants', `Bearer ${token}`)).status).toBe(200);

    expect((await dashboard(admin, `/operator/tokens/${id}/revoke`, {})).status).toBe(404);
    expect((await api('/operator/merchants', `Bearer ${token}`)).status).toBe(200);

    expect((await dashboard(admin, `/operator/people/${operator.id}/remove`, {})).status).toBeLessThan(400);
    expect((await api('/operator/merchants', `Bearer ${token}`)).status).toBe(401);
    expect((await api('/codec/decode', `Bearer ${token}`)).status).toBe(401);
    const [row] = await stack.db<{ revoked: boolean }[]>`select revoked_at is not null as revoked from operator_personal_tokens where id = ${id}`;
    expect(row!.revoked).toBe(true);
  });

  it('with DASHBOARD_BOOTSTRAP_SIGN_IN=false, refuses OPERATOR_TOKEN on /operator and /codec and still takes personal tokens', async () => {
    const operator = await addPerson(stack.db, null, 'operator');
    const { token } = await makeToken(operator, 'after bootstrap');
    const off = createApiApp({ ...stack, config: { ...stack.config, dashboardBootstrapSignIn: false } });
    const call = (path: string, authorization: string) =>
      off.request(
        path,
        {
          method: path.startsWith('/codec') ? 'POST' : 'GET',
          headers: { authorization, 'x-forwarded-for': fresh(), 'content-type': 'application/json' },
          ...(path.startsWith('/codec') ? { body: '{"payloads":[]}' } : {}),
        },
        { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
      );
    const bootstrap = `Bearer ${stack.config.operatorToken}`;
    // The same token still opens the stack's own API, where bootstrap is on.
    expect((await api('/operator/merchants', bootstrap)).status).toBe(200);
    for (const path of ['/operator/merchants', '/codec/decode', '/codec/session']) {
      const refused = await call(path, bootstrap);
      expect(refused.status, path).toBe(401);
    }
    expect((await call('/operator/merchants', `Bearer ${token}`)).status).toBe(200);
    expect((await call('/codec/decode', `Bearer ${token}`)).status).toBe(200);
  });
});
