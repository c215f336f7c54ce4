import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../core/merchants/api-keys.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { merchantApi, type ErrorBody } from '../support/merchant-api.js';
import { merchantCli } from '../support/operator.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { useTestStack } from '../support/test-stack.js';

// The per-client bucket is shared by every file of the run (all from 127.0.0.1).
const NO_RATE_LIMIT = { RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_PLATFORM: '1000000' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface AuditRow {
  actor_type: string;
  actor_id: string;
  actor_label: string;
  ip: string;
  action: string;
  target: string;
  platform_uuid: string;
  before: unknown;
  after: unknown;
}

/**
 * Named, scoped API keys (issue 51, point 5) on the real stack: several per merchant, a `read` key
 * that reads orders and events and nothing else, a `carts` key that only creates carts, each refusal
 * 403 naming the key's scope and the one needed; revoking one stops it at once and leaves the others;
 * and every change the API makes answers the id of its audit entry (point 4).
 */
describe('named, scoped API keys and the audit entries of the merchant API', () => {
  const stack = useTestStack(NO_RATE_LIMIT);
  const cli = merchantCli(stack);
  let merchant: CreatedMerchant;
  let readKey: string;
  let cartsKey: string;

  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Scoped Store' });
    readKey = (await createApiKey(stack.db, merchant.platformUuid, { name: 'Reporting', scope: 'read' })).apiKey;
    cartsKey = (await createApiKey(stack.db, merchant.platformUuid, { name: 'Storefront', scope: 'carts' })).apiKey;
  });

  const auditRow = async (id: string) => (await stack.db<AuditRow[]>`select * from audit_log where id = ${id}`)[0];

  it('the key a merchant had is a full key named Default, listed beside the new ones with scope and last use', async () => {
    const listed = await cli('api-keys', '--platform-uuid', merchant.platformUuid);
    expect(listed.code).toBe(0);
    const keys = listed.json.keys as Array<{ name: string; scope: string; prefix: string }>;
    expect(keys.map((k) => [k.name, k.scope])).toEqual([
      ['Default', 'full'],
      ['Reporting', 'read'],
      ['Storefront', 'carts'],
    ]);
    expect(keys[1]!.prefix).toBe(readKey.slice(0, 'sk_sandbox_'.length + 4));
    expect(JSON.stringify(listed.json)).not.toContain(readKey.slice(12));
  });

  it('a read key reads orders and events, and is refused a refund with 403 naming its scope and the one needed', async () => {
    const api = merchantApi(stack, readKey);
    expect((await api.get('/orders')).status).toBe(200);
    expect((await api.get('/events')).status).toBe(200);

    const refused = await api.refund('AAAAAAAAAAAAAAAAAAAAAAAA', { amount: 100 });
    const body = (await refused.json()) as ErrorBody;
    expect(refused.status).toBe(403);
    expect(body).toMatchObject({
      code: 'FORBIDDEN',
      errors: [{ path: 'Authorization', message: 'is a key of scope read; this request needs scope full' }],
      requestId: expect.any(String),
    });
    expect(body.message).toContain("This API key's scope is read");
    expect(refused.headers.get('audit-entry-id')).toBeNull();
    // Nothing else either: not its profile, not endpoints, not payment links.
    for (const path of ['/me', '/webhook-endpoints', '/payment-links']) expect((await api.get(path)).status, path).toBe(403);
    // Nor a cart: create-cart needs a full or carts key, and nothing is written.
    const cart = await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${readKey}` });
    expect(cart.status).toBe(403);
    expect(((await cart.json()) as ErrorBody).errors[0]!.message).toBe('is a key of scope read; this request needs scope full or carts');
  });

  it('a carts key creates carts (counted as keyed) and nothing else', async () => {
    const cart = await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${cartsKey}` });
    expect(cart.status).toBe(200);
    const { cartId } = ((await cart.json()) as { data: { cartId: string } }).data;
    const [row] = await stack.db<{ created_with: string }[]>`select created_with from carts where cart_id = ${cartId}`;
    expect(row!.created_with).toBe('api_key');
    const orders = await merchantApi(stack, cartsKey).get('/orders');
    expect(orders.status).toBe(403);
    expect(((await orders.json()) as ErrorBody).errors[0]!.message).toBe('is a key of scope carts; this request needs scope read or full');
    // Its use is listed (written off the answer's path).
    await expect
      .poll(
        async () =>
          (
            await stack.db<{ used: boolean }[]>`
        select last_used_at is not null as used from merchant_api_keys where platform_uuid = ${merchant.platformUuid} and name = 'Storefront'`
          )[0]!.used,
      )
      .toBe(true);
  });

  it('a change answers Audit-Entry-Id: the entry names the key, the address, the action, the target and the before/after', async () => {
    const api = merchantApi(stack, merchant.apiKey);
    const cartId = (
      (await (await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${merchant.apiKey}` })).json()) as {
        data: { cartId: string };
      }
    ).data.cartId;
    const expired = await api.expire(cartId);
    expect(expired.status).toBe(200);
    const expireEntry = expired.headers.get('audit-entry-id');
    expect(expireEntry).toMatch(UUID);
    const [defaultKey] = await stack.db<{ id: string }[]>`
      select id from merchant_api_keys where platform_uuid = ${merchant.platformUuid} and name = 'Default' and revoked_at is null`;
    expect(await auditRow(expireEntry!)).toMatchObject({
      actor_type: 'api_key',
      actor_id: defaultKey!.id,
      actor_label: 'Default',
      ip: '127.0.0.1',
      action: 'cart.expire',
      target: `cart:${cartId}`,
      platform_uuid: merchant.platformUuid,
    });

    const [endpoint] = ((await (await api.get('/webhook-endpoints')).json()) as { data: Array<{ id: string; description: string }> }).data;
    const patched = await fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints/${endpoint!.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'Orders to the ERP' }),
    });
    expect(patched.status).toBe(200);
    expect(await auditRow(patched.headers.get('audit-entry-id')!)).toMatchObject({
      action: 'webhook_endpoint.update',
      target: `webhook_endpoint:${endpoint!.id}`,
      before: { description: endpoint!.description },
      after: { description: 'Orders to the ERP' },
    });
    // A read answers no entry.
    expect((await api.get('/orders')).headers.get('audit-entry-id')).toBeNull();
  });

  it('a revoked key is refused within one second, and the merchant’s other keys keep working', async () => {
    const doomed = await cli('create-api-key', '--platform-uuid', merchant.platformUuid, '--name', 'Temporary', '--scope', 'read');
    expect(doomed.code).toBe(0);
    const doomedKey = doomed.json.apiKey as string;
    expect((await merchantApi(stack, doomedKey).get('/orders')).status).toBe(200);

    const revoked = await cli('revoke-api-key', '--platform-uuid', merchant.platformUuid, '--key-id', doomed.json.id as string);
    expect(revoked.json).toMatchObject({ revoked: true });
    const revokedAt = Date.now();
    const after = await merchantApi(stack, doomedKey).get('/orders');
    expect(after.status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1000);

    expect((await merchantApi(stack, readKey).get('/orders')).status).toBe(200);
    expect((await merchantApi(stack, merchant.apiKey).get('/me')).status).toBe(200);
    const [entry] = await stack.db<AuditRow[]>`
      select * from audit_log where platform_uuid = ${merchant.platformUuid} and action = 'api_key.revoke' order by at desc limit 1`;
    expect(entry).toMatchObject({
      actor_type: 'operator',
      actor_id: 'cli',
      target: `api_key:${doomed.json.id as string}`,
      before: { name: 'Temporary', scope: 'read' },
    });
  });

  it('only a full key signs in to the dashboard, and a dashboard change is in the log with the signed-in key as actor', async () => {
    const reader = dashboardClient(stack.checkoutUrl);
    const refused = await reader.signIn(readKey);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('only a key of scope full signs in to the dashboard');
    expect(reader.jar.has('dashboard_session')).toBe(false);

    const owner = dashboardClient(stack.checkoutUrl);
    expect((await owner.signIn(merchant.apiKey)).status).toBe(303);
    await owner.get('/dashboard/webhooks');
    const saved = await owner.post('/dashboard/webhooks/brand', { brandColour: '#1557b0' });
    expect(saved.status).toBe(200);
    expect(await auditRow(saved.headers.get('audit-entry-id')!)).toMatchObject({
      actor_type: 'api_key',
      actor_label: 'Default',
      action: 'settings.update',
      target: 'merchant:brandColour',
      before: { brandColour: null },
      after: { brandColour: '#1557b0' },
    });
  });
});
