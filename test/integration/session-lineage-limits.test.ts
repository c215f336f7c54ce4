import { describe, expect, it } from 'vitest';
import type { PaymentLink } from '../../core/links/payment-link-schema.js';
import type { Order } from '../../core/orders/order-schema.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Every path that mints or pays a session holds the limits of its lineage: the sandbox helper's Pay a
 * payment link's, a retry after a recovery the cart's retry cap and its one recovery, a recovery the
 * merchant's requirement of its API key (docs/payment-links.md, docs/abandoned-cart-recovery.md,
 * docs/decisions/cart-retries.md).
 */
describe('a session’s lineage holds its limits on every path', () => {
  const stack = useTestStack({ TRUST_PROXY: '1' }, { checkoutAtItsBaseUrl: true });

  let clients = 0;
  const freshClient = () => `203.0.113.${++clients}`;

  const call = (apiKey: string, method: string, path: string, body?: unknown) =>
    fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const order = async (apiKey: string, cartId: string) => (await (await call(apiKey, 'GET', `/v2/merchant/orders/${cartId}`)).json()) as Order;
  const tokenOf = (res: Response) => new URL(res.headers.get('location')!, stack.checkoutUrl).searchParams.get('token')!;
  async function visit(url: string): Promise<string> {
    const res = await fetch(url, { redirect: 'manual', headers: { 'x-forwarded-for': freshClient() } });
    expect(res.status, `visit of ${url}: ${res.status === 303 ? '' : await res.text()}`).toBe(303);
    return tokenOf(res);
  }
  const settled = (apiKey: string, cartId: string) =>
    waitFor(
      async () => {
        const now = await order(apiKey, cartId);
        return now.status === 'pending' || now.status === 'processing' ? undefined : now;
      },
      { timeoutMs: 60_000, what: `the outcome of ${cartId}` },
    );
  const complete = (apiKey: string, cartId: string, outcome: 'approved' | 'declined') =>
    call(apiKey, 'POST', `/v2/sandbox/carts/${cartId}/complete`, { outcome });
  const abandon = async (apiKey: string, cartId: string) => {
    const res = await call(apiKey, 'POST', `/v2/sandbox/carts/${cartId}/advance`, { to: 'expired' });
    expect(res.status, await res.clone().text()).toBe(200);
    return waitFor(async () => ((await order(apiKey, cartId)).status === 'abandoned' ? order(apiKey, cartId) : undefined), {
      timeoutMs: 30_000,
      what: `${cartId} abandoned`,
    });
  };

  const errorOf = async (res: Response) => ((await res.json()) as { code: string; message: string }).code;
  const linkOf = async (apiKey: string, id: string) => (await (await call(apiKey, 'GET', `/v2/merchant/payment-links/${id}`)).json()) as PaymentLink;

  it('the sandbox complete helper pays within a payment link’s maxUses: the second session is refused, the link paid once', async () => {
    const merchant = await stack.createMerchant();
    const { cartObject } = validCartRequest(merchant.platformUuid);
    const link = (await (await call(merchant.apiKey, 'POST', '/v2/merchant/payment-links', { cartObject, maxUses: 1 })).json()) as PaymentLink;
    const [s1, s2] = [await visit(link.url), await visit(link.url)];

    expect((await complete(merchant.apiKey, s1, 'approved')).status).toBe(200);
    expect((await settled(merchant.apiKey, s1)).status).toBe('paid');
    const refused = await complete(merchant.apiKey, s2, 'approved');
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toBe('SESSION_ENDED');
    expect((await order(merchant.apiKey, s2)).status).toBe('pending');
    expect((await linkOf(merchant.apiKey, link.id)).paid).toBe(1);
  });

  it('the sandbox complete helper pays no session of a closed link', async () => {
    const merchant = await stack.createMerchant();
    const { cartObject } = validCartRequest(merchant.platformUuid);
    const link = (await (await call(merchant.apiKey, 'POST', '/v2/merchant/payment-links', { cartObject })).json()) as PaymentLink;
    const s1 = await visit(link.url);
    expect((await call(merchant.apiKey, 'PATCH', `/v2/merchant/payment-links/${link.id}`, { active: false })).status).toBe(200);
    const refused = await complete(merchant.apiKey, s1, 'approved');
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toBe('SESSION_ENDED');
    expect((await order(merchant.apiKey, s1)).status).toBe('pending');
  });

  /** A cart with recovery and `retries`, failed, retried, its retry abandoned and recovered: the recovered session, failed too. */
  async function recoveredAfterRetry(apiKey: string, platformUuid: string, retries: number) {
    const request = validCartRequest(platformUuid);
    request.cartObject.cart.recovery = { enabled: true };
    request.cartObject.cart.retries = retries;
    const first = await createCartId(stack.apiUrl, request);
    expect((await complete(apiKey, first, 'declined')).status).toBe(200);
    expect((await settled(apiKey, first)).status).toBe('failed');
    const retried = await call(apiKey, 'POST', `/v2/merchant/carts/${first}/retry`);
    expect(retried.status).toBe(200);
    const retry = ((await retried.json()) as { cartId: string }).cartId;
    const abandoned = await abandon(apiKey, retry);
    expect(abandoned.recoveryUrl).toEqual(expect.any(String));
    const recovered = await visit(abandoned.recoveryUrl!);
    expect((await complete(apiKey, recovered, 'declined')).status).toBe(200);
    expect((await settled(apiKey, recovered)).status).toBe('failed');
    return { first, recovered };
  }

  it('a recovered session’s retries count with the retries made before it: the cap holds across the recovery', async () => {
    const merchant = await stack.createMerchant();
    const { recovered } = await recoveredAfterRetry(merchant.apiKey, merchant.platformUuid, 1);
    const refused = await call(merchant.apiKey, 'POST', `/v2/merchant/carts/${recovered}/retry`);
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toBe('RETRY_LIMIT_REACHED');
  });

  it('a retry of a recovered session joins the order’s chain and offers no recovery of its own', async () => {
    const merchant = await stack.createMerchant();
    const { first, recovered } = await recoveredAfterRetry(merchant.apiKey, merchant.platformUuid, 2);
    const retried = await call(merchant.apiKey, 'POST', `/v2/merchant/carts/${recovered}/retry`);
    expect(retried.status).toBe(200);
    const retry = ((await retried.json()) as { cartId: string }).cartId;
    expect(await order(merchant.apiKey, retry)).toMatchObject({ retryOf: recovered, retryRoot: first });
    const abandoned = await abandon(merchant.apiKey, retry);
    expect(abandoned.recoveryUrl).toBeNull();
  });

  it('a recovery mints no public cart once the merchant requires its API key', async () => {
    const merchant = await stack.createMerchant();
    const request = validCartRequest(merchant.platformUuid);
    request.cartObject.cart.recovery = { enabled: true };
    const cartId = await createCartId(stack.apiUrl, request);
    const abandoned = await abandon(merchant.apiKey, cartId);
    expect(abandoned.createdWith).toBe('public');
    await stack.db`update merchants set require_api_key_for_carts = true where platform_uuid = ${merchant.platformUuid}`;
    const res = await fetch(abandoned.recoveryUrl!, { redirect: 'manual', headers: { 'x-forwarded-for': freshClient() } });
    expect(res.status).toBe(410);
    expect(await stack.db`select 1 from carts where recovered_from = ${cartId}`).toHaveLength(0);
  });
});
