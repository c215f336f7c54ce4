import { beforeAll, describe, expect, it } from 'vitest';
import type { MessageSender } from '../../core/checkout/otp/sender.js';
import { answeringProcessor } from '../support/payment-processors.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

// The per-client bucket is shared by every file of the run (all from 127.0.0.1).
const NO_RATE_LIMIT = { RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_PLATFORM: '1000000' };

type ErrorBody = { code: string; message: string; errors: Array<{ path: string; message: string }> };

describe('create-cart with a merchant that requires its API key', () => {
  const otpSender: MessageSender = { name: 'silent', send: async () => {} };
  const paymentProcessor = answeringProcessor('unused', () => Promise.reject(new Error('not used by these tests')));
  const stack = useTestStack(NO_RATE_LIMIT, { otpSender, paymentProcessor });

  const settings = (platformUuid: string, requireApiKeyForCarts: boolean) =>
    fetch(`${stack.apiUrl}/operator/merchants/${platformUuid}/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stack.config.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requireApiKeyForCarts }),
    });
  const cartCount = async (platformUuid: string) =>
    (await stack.db<{ n: number }[]>`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`)[0]!.n;

  let strict: { platformUuid: string; apiKey: string };
  let other: { platformUuid: string; apiKey: string };
  beforeAll(async () => {
    strict = await stack.createMerchant({ name: 'Strict Store' });
    other = await stack.createMerchant({ name: 'Other Store' });
    const res = await settings(strict.platformUuid, true);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ platformUuid: strict.platformUuid, requireApiKeyForCarts: true });
  });

  async function expectKeyRequired(res: Response): Promise<void> {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="merchant"');
    expect((await res.json()) as ErrorBody).toMatchObject({
      code: 'UNAUTHORIZED',
      errors: [{ path: 'Authorization', message: 'this merchant requires its API key on create-cart' }],
    });
  }

  it('refuses a cart without the key, or with another merchant’s, and writes nothing', async () => {
    const body = validCartRequest(strict.platformUuid);
    await expectKeyRequired(await postCart(stack.apiUrl, body));
    await expectKeyRequired(await postCart(stack.apiUrl, body, { authorization: `Bearer ${other.apiKey}` }));
    await expectKeyRequired(await postCart(stack.apiUrl, body, { authorization: `Bearer sk_sandbox_${'x'.repeat(43)}` }));
    await expectKeyRequired(await postCart(stack.apiUrl, body, { authorization: strict.apiKey }));
    await expectKeyRequired(await postCart(stack.apiUrl, body, { 'idempotency-key': 'strict-no-key-0001' }));
    expect(await cartCount(strict.platformUuid)).toBe(0);
    const keys = await stack.db`select 1 from idempotency_keys where platform_uuid = ${strict.platformUuid}`;
    expect(keys).toHaveLength(0);
  });

  it('still validates the body first: a bad body is 400 whatever the key', async () => {
    const res = await postCart(stack.apiUrl, { cartObject: { store: { platformUuid: strict.platformUuid } } });
    expect(res.status).toBe(400);
  });

  it('takes the cart with the merchant’s own key; a rotated-out key is refused', async () => {
    const before = await cartCount(strict.platformUuid);
    const ok = await postCart(stack.apiUrl, validCartRequest(strict.platformUuid), { authorization: `Bearer ${strict.apiKey}` });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await cartCount(strict.platformUuid)).toBe(before + 1);

    const rotated = await fetch(`${stack.apiUrl}/operator/merchants/${strict.platformUuid}/rotate-api-key`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.config.operatorToken}` },
    });
    const { apiKey } = (await rotated.json()) as { apiKey: string };
    await expectKeyRequired(await postCart(stack.apiUrl, validCartRequest(strict.platformUuid), { authorization: `Bearer ${strict.apiKey}` }));
    expect((await postCart(stack.apiUrl, validCartRequest(strict.platformUuid), { authorization: `Bearer ${apiKey}` })).status).toBe(200);
    strict = { ...strict, apiKey };
  });

  it('off (the default): the public create-cart takes carts without a key; turned off again, too', async () => {
    expect((await postCart(stack.apiUrl, validCartRequest(other.platformUuid))).status).toBe(200);
    expect((await settings(strict.platformUuid, false)).status).toBe(200);
    expect((await postCart(stack.apiUrl, validCartRequest(strict.platformUuid))).status).toBe(200);
  });

  it('validates the settings body', async () => {
    expect((await settings(strict.platformUuid, 'yes' as unknown as boolean)).status).toBe(400);
    expect((await settings('00000000-0000-4000-8000-000000000000', true)).status).toBe(404);
  });
});
