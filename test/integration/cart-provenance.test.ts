import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { Order, OrderList } from '../../core/orders/order-schema.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { merchantApi } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

type Received = { event: string; data: { cartId: string; amount: number; status: string; createdWith: string; extra: Record<string, string> } };

/**
 * Create-cart is public: a stranger who knows a merchant's platformUuid can make a cart for it and pay
 * it. The merchant's signed webhooks and its orders say which carts it made with its API key.
 */
describe('cart provenance: createdWith on every webhook event and order', () => {
  const stack = useTestStack({ TRUST_PROXY: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500' });
  let receiver: WebhookReceiver;
  let merchant: CreatedMerchant;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    merchant = await stack.createMerchant({ name: 'Provenance Store', webhookUrl: receiver.url });
  });
  afterAll(() => receiver?.close());

  /** Creates a cart (with `headers`), then pays it as any customer would. */
  async function paidCart(body: ReturnType<typeof validCartRequest>, headers: Record<string, string> = {}): Promise<string> {
    const res = await postCart(stack.apiUrl, body, headers);
    expect(res.status, await res.clone().text()).toBe(200);
    const { cartId } = ((await res.json()) as { data: { cartId: string } }).data;
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = { cartId, handle: driver.handleOf(cartId) };
    await driver.sendCode(session, 'stranger@example.com');
    await driver.verify(session, await driver.sentCode(session));
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    return cartId;
  }

  /** The verified order_created the merchant's endpoint received for the cart. */
  const receivedOrderCreated = (cartId: string) =>
    waitFor(
      () => {
        for (const request of receiver.requests) {
          const verified = verifyWebhook(request.rawBody, request.headers, merchant.webhookSecret);
          if (!verified.valid) continue;
          const event = verified.event as unknown as Received;
          if (event.event === 'order_created' && event.data.cartId === cartId) return event;
        }
        return undefined;
      },
      { what: `order_created of ${cartId}` },
    );

  it('marks a stranger’s public cart "public" on the signed webhook and the order, whatever its extra claims', async () => {
    const forged = validCartRequest(merchant.platformUuid);
    forged.cartObject.cart.items = [{ ...forged.cartObject.cart.items[0]!, price: 1, quantity: 1 }];
    forged.cartObject.cart.extra = { orderRef: 'order-42' };
    const cartId = await paidCart(forged);

    const event = await receivedOrderCreated(cartId);
    expect(event.data).toMatchObject({ cartId, status: 'paid', amount: 1, extra: { orderRef: 'order-42' }, createdWith: 'public' });

    const api = merchantApi(stack, merchant.apiKey);
    expect(((await (await api.get(`/orders/${cartId}`)).json()) as Order).createdWith).toBe('public');
    const list = (await (await api.get('/orders')).json()) as OrderList;
    expect(list.data.find((o) => o.cartId === cartId)?.createdWith).toBe('public');

    // The dashboard says it on the order and in the list, with what to do about it.
    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    const page = await browser.get(`/dashboard/orders/${cartId}`);
    expect(page.body).toContain('data-created-with="public"');
    expect(page.body).toContain('fulfil it only if you created this cart yourself');
    expect((await browser.get('/dashboard/orders')).body).toMatch(new RegExp(`${cartId}[\\s\\S]*?data-created-with="public"`));
  });

  it('marks a cart made with the merchant’s API key "api_key"; another merchant’s key makes no cart at all', async () => {
    const keyed = await paidCart(validCartRequest(merchant.platformUuid), { authorization: `Bearer ${merchant.apiKey}` });
    expect((await receivedOrderCreated(keyed)).data.createdWith).toBe('api_key');

    // A key that is not the merchant's is refused (docs/api.md, "A key that is sent must be the merchant's"), never taken as public.
    const other = await stack.createMerchant({ name: 'Other Store' });
    expect((await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid), { authorization: `Bearer ${other.apiKey}` })).status).toBe(401);
    const anonymous = await paidCart(validCartRequest(merchant.platformUuid));
    expect((await receivedOrderCreated(anonymous)).data.createdWith).toBe('public');

    // Every event the ledger recorded for either cart carries it, as sent.
    const events = await stack.db<{ created_with: string }[]>`
      select payload->'data'->>'createdWith' as created_with from webhook_events where cart_id in (${keyed}, ${anonymous}) order by cart_id`;
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(new Set(events.map((e) => e.created_with))).toEqual(new Set(['api_key', 'public']));
  });
});
