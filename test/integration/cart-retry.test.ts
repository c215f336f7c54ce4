import { describe, expect, it } from 'vitest';
import type { Cart, CreateCartRequest, RetriedCart } from '../../core/checkout/cart-schema.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { insightSummary } from '../../core/insights/insights.js';
import type { Order } from '../../core/orders/order-schema.js';
import type { Session } from '../support/cart-session-driver.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import type { ErrorBody } from '../support/merchant-api.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * `POST /v2/merchant/carts/{cartId}/retry` (docs/decisions/cart-retries.md): a failed session gets a
 * new one for the same cart, made by create-cart's path, linked by `retryOf`; anything but a failed
 * session is refused, each cart is retried once, and a cart's `retries` caps its whole chain.
 */
describe('retrying a failed session', () => {
  const stack = useTestStack();
  const shop = useReceivingMerchant(stack, 'Second Chance Store');

  const retry = (cartId: string, headers: Record<string, string> = {}, apiKey = shop.merchant.apiKey) =>
    fetch(`${stack.apiUrl}/v2/merchant/carts/${encodeURIComponent(cartId)}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
    });

  /** A cart made with the merchant's API key (so `createdWith: "api_key"`), its cart edited first. */
  async function keyedSession(edit: (cart: Cart) => void = () => {}): Promise<Session> {
    const request: CreateCartRequest = validCartRequest(shop.merchant.platformUuid);
    edit(request.cartObject.cart);
    const res = await postCart(stack.apiUrl, request, { authorization: `Bearer ${shop.merchant.apiKey}` });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const { cartId } = (JSON.parse(text) as { data: { cartId: string } }).data;
    return { cartId, handle: shop.driver.handleOf(cartId) };
  }

  /** Contact, code, then the declined card: the session is failed. */
  async function declined(session: Session): Promise<string> {
    await shop.driver.sendCode(session);
    await shop.driver.verify(session, await shop.driver.sentCode(session));
    expect((await shop.driver.pay(session, SANDBOX_CARDS.declined)).status).toBe('failed');
    return session.cartId;
  }

  async function retried(cartId: string, headers: Record<string, string> = {}): Promise<RetriedCart> {
    const res = await retry(cartId, headers);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return JSON.parse(text) as RetriedCart;
  }

  async function refused(res: Response, status: number, code: string): Promise<ErrorBody> {
    const body = (await res.json()) as ErrorBody;
    expect({ status: res.status, code: body.code, paths: body.errors.map((e) => e.path) }).toEqual({ status, code, paths: ['cartId'] });
    expect(body.requestId).toMatch(/\S/);
    return body;
  }

  const order = async (cartId: string) => (await (await shop.api.get(`/orders/${cartId}`)).json()) as Order;

  it('makes a new session of the same cart, linked by retryOf, which the customer can pay; the failed one stays failed', async () => {
    const insights = () => insightSummary(stack.db, { merchant: { platformUuid: shop.merchant.platformUuid, environment: stack.config.environment }, days: 1 });
    const insightsBefore = await insights();
    const first = await declined(await keyedSession());
    const before = Date.now();
    const answer = await retried(first);
    expect(Object.keys(answer).sort()).toEqual(['cartId', 'expiresOn', 'url']);
    expect(answer.cartId).not.toBe(first);
    expect(answer.url).toBe(`${stack.config.checkoutBaseUrl}/?token=${answer.cartId}`);
    // The usual lifetime, counted from the retry.
    const lifetime = Date.parse(answer.expiresOn) - before;
    expect(lifetime).toBeGreaterThanOrEqual(stack.config.sessionLifetimeMs - 1_000);
    expect(lifetime).toBeLessThanOrEqual(stack.config.sessionLifetimeMs + 10_000);

    const original = await order(first);
    expect(original).toMatchObject({ status: 'failed', failureCode: 'card_declined', retryOf: null, retryRoot: null });
    const retry_ = await order(answer.cartId);
    expect(retry_).toMatchObject({
      status: 'pending',
      retryOf: first,
      retryRoot: first,
      createdWith: 'api_key',
      amount: original.amount,
      payment: null,
      customer: null,
    });
    expect({ items: retry_.items, extra: retry_.extra, country: retry_.country }).toEqual({
      items: original.items,
      extra: original.extra,
      country: original.country,
    });

    // The customer pays the new session; its order_created says which session it retries.
    const session = { cartId: answer.cartId, handle: shop.driver.handleOf(answer.cartId) };
    await shop.driver.sendCode(session);
    await shop.driver.verify(session, await shop.driver.sentCode(session));
    expect((await shop.driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    const created = await waitFor(
      () =>
        [...shop.receiver.processed.values()]
          .map((r) => JSON.parse(r.rawBody) as { event: string; data: { cartId: string; retryOf: string | null; status: string } })
          .find((e) => e.event === 'order_created' && e.data.cartId === answer.cartId),
      { what: `order_created of ${answer.cartId}` },
    );
    expect(created.data).toMatchObject({ status: 'paid', retryOf: first, retryRoot: first });
    expect((await order(first)).status).toBe('failed');
    // Every event of the first cart says it retries nothing.
    const firstEvents = [...shop.receiver.processed.values()]
      .map((r) => JSON.parse(r.rawBody) as { data: { cartId: string; retryOf: unknown } })
      .filter((e) => e.data.cartId === first);
    expect(firstEvents.length).toBeGreaterThan(0);
    expect(firstEvents.every((e) => e.data.retryOf === null)).toBe(true);

    // The insights count the retry, its payment and what it brought in, apart from the failed first session.
    const insightsAfter = await insights();
    const eur = (summary: typeof insightsAfter) => summary.revenue.find((r) => r.currency === 'EUR') ?? { amount: 0, retried: 0 };
    expect({
      sessions: insightsAfter.sessions - insightsBefore.sessions,
      retries: insightsAfter.retries.sessions - insightsBefore.retries.sessions,
      retriesPaid: insightsAfter.retries.paid - insightsBefore.retries.paid,
      revenue: eur(insightsAfter).amount - eur(insightsBefore).amount,
      retriedRevenue: eur(insightsAfter).retried - eur(insightsBefore).retried,
    }).toEqual({ sessions: 2, retries: 1, retriesPaid: 1, revenue: original.amount, retriedRevenue: original.amount });
  });

  it('refuses a paid, an open and a cancelled session with SESSION_NOT_RETRYABLE, and another merchant’s cart with 404', async () => {
    const paid = await keyedSession();
    await shop.driver.sendCode(paid);
    await shop.driver.verify(paid, await shop.driver.sentCode(paid));
    expect((await shop.driver.pay(paid, SANDBOX_CARDS.approved)).status).toBe('paid');
    expect((await refused(await retry(paid.cartId), 409, 'SESSION_NOT_RETRYABLE')).message).toMatch(/paid, so there is nothing to retry/);

    const open = await keyedSession();
    expect((await refused(await retry(open.cartId), 409, 'SESSION_NOT_RETRYABLE')).message).toMatch(/still open \(pending\)/);

    const cancelled = await keyedSession();
    expect((await shop.api.expire(cancelled.cartId)).status).toBe(200);
    expect((await refused(await retry(cancelled.cartId), 409, 'SESSION_NOT_RETRYABLE')).message).toMatch(/create a new cart/);

    const failed = await declined(await keyedSession());
    const stranger = await stack.createMerchant({ name: 'Someone Else', webhookUrl: shop.receiver.url });
    const res = await retry(failed, {}, stranger.apiKey);
    expect(res.status).toBe(404);
    expect(((await res.json()) as ErrorBody).code).toBe('NOT_FOUND');
    // Nothing was made for any of them.
    const [made] = await stack.db<{ count: number }[]>`
      select count(*)::int as count from carts where retry_of in ${stack.db([paid.cartId, open.cartId, cancelled.cartId, failed])}`;
    expect(made?.count).toBe(0);
  });

  it('retries a cart once, and caps the chain at the first cart’s retries: a retry of a retry counts', async () => {
    const first = await declined(await keyedSession((cart) => (cart.retries = 1)));
    const second = await retried(first);
    const again = await refused(await retry(first), 409, 'ALREADY_RETRIED');
    expect(again.message).toContain(second.cartId);

    await declined({ cartId: second.cartId, handle: shop.driver.handleOf(second.cartId) });
    const capped = await refused(await retry(second.cartId), 409, 'RETRY_LIMIT_REACHED');
    expect(capped.message).toContain(`its 1 retry (cartObject.cart.retries of ${first}`);

    // Absent means 3: three retries in a chain, the fourth refused; the chain is recorded against its first cart.
    let tip = await declined(await keyedSession());
    const root = tip;
    for (let n = 0; n < 3; n++) {
      const previous = tip;
      const next = (await retried(tip)).cartId;
      tip = await declined({ cartId: next, handle: shop.driver.handleOf(next) });
      // Each order of the chain names the first cart beside the one it retries, and so does each of its events.
      expect(await order(tip)).toMatchObject({ retryOf: previous, retryRoot: root });
      const events = [...shop.receiver.processed.values()]
        .map((r) => JSON.parse(r.rawBody) as { data: { cartId: string; retryRoot: unknown } })
        .filter((e) => e.data.cartId === tip);
      expect(events.every((e) => e.data.retryRoot === root)).toBe(true);
    }
    await refused(await retry(tip), 409, 'RETRY_LIMIT_REACHED');
    const chain = await stack.db<{ retry_root: string }[]>`select retry_root from carts where retry_root = ${root}`;
    expect(chain).toHaveLength(3);

    const none = await declined(await keyedSession((cart) => (cart.retries = 0)));
    await refused(await retry(none), 409, 'RETRY_LIMIT_REACHED');
  });

  it('answers a repeat with the same Idempotency-Key with the same new session, and refuses the key for another cart', async () => {
    const first = await declined(await keyedSession());
    const key = `retry-${first}`;
    const res = await retry(first, { 'idempotency-key': key });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const repeat = await retry(first, { 'idempotency-key': key });
    expect({ status: repeat.status, text: await repeat.text(), replayed: repeat.headers.get('idempotent-replayed') }).toEqual({
      status: 200,
      text,
      replayed: 'true',
    });
    const [made] = await stack.db<{ count: number }[]>`select count(*)::int as count from carts where retry_of = ${first}`;
    expect(made?.count).toBe(1);

    const other = await declined(await keyedSession());
    const conflict = (await (await retry(other, { 'idempotency-key': key })).json()) as ErrorBody;
    expect(conflict.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('validates cartObject.cart.retries at create-cart, and a key’s request with retries: 3 is the one without', async () => {
    for (const retries of [4, -1, 1.5, '2', null]) {
      const request = validCartRequest(shop.merchant.platformUuid) as unknown as { cartObject: { cart: Record<string, unknown> } };
      request.cartObject.cart.retries = retries;
      const res = await postCart(stack.apiUrl, request);
      const body = (await res.json()) as ErrorBody;
      expect({ retries, status: res.status, code: body.code, paths: body.errors.map((e) => e.path) }).toEqual({
        retries,
        status: 400,
        code: 'VALIDATION_ERROR',
        paths: ['cartObject.cart.retries'],
      });
    }
    const request = validCartRequest(shop.merchant.platformUuid);
    request.cartObject.cart.retries = 0;
    const echoed = (await (await postCart(stack.apiUrl, request)).json()) as { data: { cartData: { cart: Cart } } };
    expect(echoed.data.cartData.cart.retries).toBe(0);

    const key = `retries-default-${Date.now()}`;
    const withDefault = validCartRequest(shop.merchant.platformUuid);
    withDefault.cartObject.cart.retries = 3;
    const firstAnswer = await (await postCart(stack.apiUrl, validCartRequest(shop.merchant.platformUuid), { 'idempotency-key': key })).json();
    const secondAnswer = await postCart(stack.apiUrl, withDefault, { 'idempotency-key': key });
    expect(secondAnswer.status).toBe(200);
    expect((await secondAnswer.json()) as unknown).toEqual(firstAnswer);
  });
});
