import { beforeAll, describe, expect, it } from 'vitest';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

// The per-client bucket is shared by every file of the run (all from 127.0.0.1).
const NO_RATE_LIMIT = { RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_PLATFORM: '1000000' };

type ErrorBody = { code: string; message: string; errors: Array<{ path: string; message: string }>; requestId: string };

/**
 * A merchant that does not require its key (the default): without an Authorization header its carts
 * are public, as always; with one, the header must carry its active key, or nothing is created.
 */
describe('create-cart with an Authorization header that carries no active key of the merchant', () => {
  const stack = useTestStack(NO_RATE_LIMIT);
  let merchant: { platformUuid: string; apiKey: string };
  const operator = (path: string) =>
    fetch(`${stack.apiUrl}/operator/merchants/${merchant.platformUuid}/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.config.operatorToken}` },
    });
  const carts = async () => (await stack.db<{ n: number }[]>`select count(*)::int as n from carts where platform_uuid = ${merchant.platformUuid}`)[0]!.n;

  beforeAll(async () => {
    merchant = await stack.createMerchant({ name: 'Keyed Store' });
  });

  async function expectInvalidKey(res: Response): Promise<void> {
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="merchant"');
    expect(body).toMatchObject({
      code: 'UNAUTHORIZED',
      errors: [{ path: 'Authorization', message: 'is not an active API key of this merchant (unknown, revoked or rotated out)' }],
    });
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  }

  it('refuses an unknown key with 401 in the error envelope, and creates nothing', async () => {
    const before = await carts();
    await expectInvalidKey(await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer sk_sandbox_${'x'.repeat(43)}` }));
    await expectInvalidKey(
      await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), {
        authorization: `Bearer sk_sandbox_${'y'.repeat(43)}`,
        'idempotency-key': 'invalid-key-0001',
      }),
    );
    // The merchant's own key without the Bearer scheme is no key either.
    await expectInvalidKey(await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: merchant.apiKey }));
    expect(await carts()).toBe(before);
    expect(await stack.db`select 1 from idempotency_keys where platform_uuid = ${merchant.platformUuid}`).toHaveLength(0);
  });

  it('refuses another merchant’s key', async () => {
    const other = await stack.createMerchant({ name: 'Other Store' });
    await expectInvalidKey(await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${other.apiKey}` }));
  });

  it('refuses a revoked key, and a rotated-out one; the current key and no header at all still make carts', async () => {
    const ok = await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${merchant.apiKey}` });
    expect(ok.status, await ok.clone().text()).toBe(200);

    const rotated = await operator('rotate-api-key');
    expect(rotated.status).toBe(200);
    const { apiKey } = (await rotated.json()) as { apiKey: string };
    await expectInvalidKey(await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${merchant.apiKey}` }));
    expect((await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${apiKey}` })).status).toBe(200);

    expect((await operator('revoke-api-key')).status).toBe(200);
    const before = await carts();
    await expectInvalidKey(await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${apiKey}` }));
    expect(await carts()).toBe(before);

    // No header: a public cart, as before.
    const anonymous = await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid));
    expect(anonymous.status, await anonymous.clone().text()).toBe(200);
    const { cartId } = ((await anonymous.json()) as { data: { cartId: string } }).data;
    const [row] = await stack.db<{ created_with: string }[]>`select created_with from carts where cart_id = ${cartId}`;
    expect(row!.created_with).toBe('public');
  });
});
