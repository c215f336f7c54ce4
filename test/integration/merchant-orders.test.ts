import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { OrderData } from '../../core/checkout/order-model.js';
import type { Order, OrderList } from '../../core/orders/order-schema.js';
import { getOrder, listOrders } from '../../core/orders/orders.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantApi, paidCarts, type ErrorBody } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('the merchant’s orders: one order in full, and the list with filters and cursor pagination', () => {
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500' });
  let receiver: WebhookReceiver;
  let merchant: CreatedMerchant;
  let api: ReturnType<typeof merchantApi>;

  beforeAll(async () => {
    // The endpoint answers with more than an excerpt holds.
    receiver = await startWebhookReceiver(() => ({ status: 200, body: `ok ${'x'.repeat(2000)}` }));
    merchant = await stack.createMerchant({ name: 'Orders Store', webhookUrl: receiver.url });
    api = merchantApi(stack, merchant.apiKey);
  });
  afterAll(() => receiver?.close());

  async function json<T>(res: Response, status = 200): Promise<T> {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return JSON.parse(text) as T;
  }

  const cartWithExtra = (platformUuid: string, extra: Record<string, string>) => {
    const request = validCartRequest(platformUuid);
    request.cartObject.cart.extra = extra;
    return createCartId(stack.apiUrl, request);
  };

  it('shows a paid order with its items, card, refunds and every webhook attempt with a bounded excerpt of the answer', async () => {
    const cartId = await paidCarts(stack, merchant).paidCart();
    await api.refund(cartId, { amount: 500, reason: 'Socks missing' });
    const order = await waitFor(
      async () => {
        const current = await json<Order>(await api.get(`/orders/${cartId}`));
        const done = current.webhooks.length === 2 && current.webhooks.every((w) => w.status === 'delivered');
        return done ? current : undefined;
      },
      { what: 'both events delivered' },
    );
    expect(order).toMatchObject({
      cartId,
      status: 'partially_refunded',
      amount: 4498,
      currency: 'EUR',
      refundedTotal: 500,
      payment: { brand: 'visa', last4: '1111' },
      extra: { orderRef: 'order-42' },
      failureCode: null,
      items: validCartRequest(merchant.platformUuid).cartObject.cart.items,
      refunds: [{ amount: 500, reason: 'Socks missing', status: 'succeeded', failureCode: null }],
    });
    expect(order.webhooks.map((w) => [w.sequence, w.event])).toEqual([
      [1, 'order_created'],
      [2, 'order_refunded'],
    ]);
    const attempt = order.webhooks[0]!.attempts[0]!;
    expect(attempt).toMatchObject({ responseStatus: 200, error: null });
    expect(attempt.responseExcerpt).toHaveLength(500);
    expect(attempt.responseExcerpt!.startsWith('ok xxx')).toBe(true);
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(attempt.attemptedAt)).toBeGreaterThan(Date.parse(order.createdAt));
    // No card data beyond brand and last 4, anywhere in the answer.
    expect(JSON.stringify(order)).not.toMatch(/4111111111111111|cardToken|card_/);
  });

  it('answers 404, never 403, for another merchant’s cart, an unknown one and another environment’s', async () => {
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    expect((await json<Order>(await api.get(`/orders/${cartId}`))).status).toBe('pending');

    const other = await stack.createMerchant({ name: 'Nosy Store' });
    const nosy = merchantApi(stack, other.apiKey);
    for (const res of [await nosy.get(`/orders/${cartId}`), await api.get('/orders/nosuchcartnosuchcart0000')]) {
      const body = await json<ErrorBody>(res, 404);
      expect(body).toMatchObject({ code: 'NOT_FOUND', errors: [{ path: 'cartId' }] });
    }
    expect((await json<OrderList>(await nosy.get('/orders'))).data).toEqual([]);
    // The merchant API of production would ask with environment production: the sandbox cart is not there.
    expect(await getOrder(stack.db, stack.config, { platformUuid: merchant.platformUuid, environment: 'production' }, cartId)).toBeUndefined();
    expect((await listOrders(stack.db, stack.config, { platformUuid: merchant.platformUuid, environment: 'production' })).orders).toEqual([]);
    expect((await fetch(`${stack.apiUrl}/v2/merchant/orders/${cartId}`)).status).toBe(401);
  });

  it('filters by status, creation time and one extra key and value, newest first, and pages with a cursor', async () => {
    const seller = await stack.createMerchant({ name: 'Catalogue Store' });
    const sellerApi = merchantApi(stack, seller.apiKey);
    const before = new Date();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push(await cartWithExtra(seller.platformUuid, { orderRef: `ref-${i}`, channel: i % 2 ? 'web' : 'app' }));
    const paid = await paidCarts(stack, seller).paidCart();
    const after = new Date();
    const newestFirst = [paid, ...created.reverse()];

    const all = await json<OrderList>(await sellerApi.get('/orders'));
    expect(all.data.map((o) => o.cartId)).toEqual(newestFirst);
    expect(all.nextCursor).toBeNull();
    expect(all.data[0]).toEqual({
      cartId: paid,
      status: 'paid',
      amount: 4498,
      currency: 'EUR',
      country: 'IE',
      captureMethod: 'automatic',
      capturedAmount: 4498,
      refundedTotal: 0,
      payment: { brand: 'visa', last4: '1111', threeDSecure: { result: 'not_required' }, savedCard: false },
      failureCode: null,
      cancelledBy: null,
      customer: { email: 'jane.doe@example.com' },
      items: expect.any(Array) as OrderData['items'],
      extra: { orderRef: 'order-42' },
      createdWith: 'public',
      paymentLinkId: null,
      retryOf: null,
      retryRoot: null,
      recoveryUrl: null,
      recoveredFrom: null,
      dispute: null,
      earlyFraudWarningAt: null,
      createdAt: expect.any(String) as string,
      paidAt: expect.any(String) as string,
    } satisfies OrderData);

    const ids = async (query: string) => (await json<OrderList>(await sellerApi.get(`/orders?${query}`))).data.map((o) => o.cartId);
    expect(await ids('status=paid')).toEqual([paid]);
    expect(await ids('status=pending')).toEqual(created);
    expect(await ids('extraKey=orderRef&extraValue=ref-3')).toEqual([created[1]]);
    expect(await ids('extraKey=channel&extraValue=web')).toEqual([created[1], created[3]]);
    expect(await ids('extraKey=channel&extraValue=we')).toEqual([]);
    expect(await ids(`createdFrom=${before.toISOString()}&createdTo=${after.toISOString()}`)).toEqual(newestFirst);
    expect(await ids(`createdTo=${before.toISOString()}`)).toEqual([]);
    expect(await ids(`createdFrom=${encodeURIComponent(new Date(after.getTime() + 1000).toISOString())}`)).toEqual([]);

    // Pages of 2: every order once, in order, and the last page says so.
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: OrderList = await json<OrderList>(await sellerApi.get(`/orders?limit=2${cursor ? `&cursor=${cursor}` : ''}`));
      pages.push(page.data.map((o) => o.cartId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
    expect(pages.flat()).toEqual(newestFirst);
    // A cursor combines with the filters it was made under.
    const firstPending = await json<OrderList>(await sellerApi.get('/orders?status=pending&limit=3'));
    const nextPending = await json<OrderList>(await sellerApi.get(`/orders?status=pending&limit=3&cursor=${firstPending.nextCursor}`));
    expect([...firstPending.data, ...nextPending.data].map((o) => o.cartId)).toEqual(created);
    expect(nextPending.nextCursor).toBeNull();
  });

  it('refuses bad query parameters in the documented envelope, naming each', async () => {
    const expectBad = async (query: string, path: string) => {
      const body = await json<ErrorBody>(await api.get(`/orders?${query}`), 400);
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.errors.map((e) => e.path)).toEqual([path]);
    };
    await expectBad('limit=0', 'limit');
    await expectBad('limit=1000', 'limit');
    await expectBad('status=shipped', 'status');
    await expectBad('createdFrom=yesterday', 'createdFrom');
    await expectBad('extraKey=orderRef', 'extraValue');
    await expectBad('cursor=bm90LWEtY3Vyc29y', 'cursor');
    await expectBad('sort=asc', 'sort');
    const post = await fetch(`${stack.apiUrl}/v2/merchant/orders`, { method: 'POST', headers: { authorization: `Bearer ${merchant.apiKey}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});
