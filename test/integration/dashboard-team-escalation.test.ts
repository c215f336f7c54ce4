import { describe, expect, it } from 'vitest';
import { createApiKey, listApiKeys } from '../../core/merchants/api-keys.js';
import { acceptInvitation, invite, listPeople } from '../../core/people/people.js';
import { csrfToken, deriveCsrfKey } from '../../web/csrf.js';
import { DASHBOARD_CSRF_COOKIE } from '../../web/dashboard/csrf.js';
import { SESSION_COOKIE } from '../../web/dashboard/session.js';
import { addPerson, sessionFor } from '../support/dashboard-people.js';
import { useTestStack } from '../support/test-stack.js';

const NONCE = 'teamescalationnonce000';

/**
 * Nobody reaches a role they do not hold by a side door (docs/dashboard.md): a `full` API key opens the
 * dashboard as owner and refunds, so only owners manage one; an invitation, whose link the inviter sees
 * too, never takes over or re-roles a member of the team.
 */
describe('the dashboard’s side doors to a role', () => {
  const stack = useTestStack();
  const csrf = () => csrfToken(deriveCsrfKey(stack.config.keyring), 'dashboard', NONCE);
  const post = (session: string, path: string, form: Record<string, string>) =>
    fetch(`${stack.checkoutUrl}/dashboard${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: `${DASHBOARD_CSRF_COOKIE}=${NONCE}; ${SESSION_COOKIE}=${session}`,
        origin: stack.checkoutUrl,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ csrf: csrf(), ...form }).toString(),
    });

  it('a developer creates and revokes carts and read keys, never a full one; an owner does', async () => {
    const merchant = await stack.createMerchant();
    const developer = await sessionFor(stack.db, await addPerson(stack.db, merchant.platformUuid, 'developer'));
    const owner = await sessionFor(stack.db, await addPerson(stack.db, merchant.platformUuid, 'owner'));
    const keys = async () => (await listApiKeys(stack.db, merchant.platformUuid)).map((k) => `${k.name}:${k.scope}`).sort();
    const before = await keys();

    const full = await post(developer, '/api-keys', { name: 'mine', scope: 'full' });
    expect(full.status).toBe(403);
    expect(await full.text()).toContain('Only an owner can create a full key');
    expect(await keys()).toEqual(before);

    expect((await post(developer, '/api-keys', { name: 'reports', scope: 'read' })).status).toBe(201);
    expect((await post(owner, '/api-keys', { name: 'backend', scope: 'full' })).status).toBe(201);

    const ownersKey = await createApiKey(stack.db, merchant.platformUuid, { name: 'owner backend', scope: 'full' });
    expect((await post(developer, `/api-keys/${ownersKey.key.id}/revoke`, {})).status).toBe(403);
    expect(await keys()).toContain('owner backend:full');
    const reports = (await listApiKeys(stack.db, merchant.platformUuid)).find((k) => k.name === 'reports')!;
    expect((await post(developer, `/api-keys/${reports.id}/revoke`, {})).status).toBe(200);
    expect((await post(owner, `/api-keys/${ownersKey.key.id}/revoke`, {})).status).toBe(200);
    expect(await keys()).not.toContain('owner backend:full');
  });

  it('an email already on the team is not invited: the sole owner cannot demote themselves through a link', async () => {
    const merchant = await stack.createMerchant();
    const owner = await addPerson(stack.db, merchant.platformUuid, 'owner');
    const session = await sessionFor(stack.db, owner);
    const invited = await post(session, '/people/invitations', { email: owner.email, role: 'analyst' });
    expect(invited.status).toBe(409);
    expect(await invited.text()).toContain('is already on the team');
    expect(await stack.db`select 1 from dashboard_invitations where platform_uuid = ${merchant.platformUuid} and email = ${owner.email}`).toHaveLength(1);
    expect((await listPeople(stack.db, merchant.platformUuid)).map((p) => [p.email, p.role])).toEqual([[owner.email, 'owner']]);
  });

  it('an invitation sent before its email’s member joined no longer opens: it takes over nobody', async () => {
    const merchant = await stack.createMerchant();
    const email = `ana-${crypto.randomUUID()}@example.com`;
    const stale = await invite(stack.db, merchant.platformUuid, { email, role: 'analyst' });
    const joined = await addPerson(stack.db, merchant.platformUuid, 'owner', email);
    expect(await stack.db.begin((tx) => acceptInvitation(tx, stale.token))).toBeUndefined();
    expect((await listPeople(stack.db, merchant.platformUuid)).map((p) => [p.id, p.role])).toEqual([[joined.id, 'owner']]);
  });

  it('the operators’ CLI still re-invites a member, to enrol a passkey again', async () => {
    const merchant = await stack.createMerchant();
    const member = await addPerson(stack.db, merchant.platformUuid, 'support');
    const again = await invite(stack.db, merchant.platformUuid, { email: member.email, role: 'support' }, { reenrol: true });
    expect(await stack.db.begin((tx) => acceptInvitation(tx, again.token))).toMatchObject({ id: member.id, role: 'support' });
  });
});
