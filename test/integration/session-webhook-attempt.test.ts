import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantApi } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type Reply, type WebhookReceiver } from '../support/webhook-receiver.js';

/** A merchant's limit (docs/decisions/webhooks.md, "Several endpoints"). */
const ENDPOINTS = 16;

/**
 * The session makes its step's first webhook attempt itself, inside the local activity the customer's
 * Pay answer waits on (docs/decisions/session-cost.md). With every endpoint hanging, that attempt must
 * still end within its bound, whatever the number of endpoints, and leave every event to the cart's
 * delivery workflow, which sends each endpoint the cart's events in recorded order once it answers.
 */
describe("a session's webhook attempt when every endpoint hangs", () => {
  // Attempts of the delivery workflow that hang time out and come again soon, for as long as the test holds the endpoints.
  // The page waits 8 s for the outcome: the bounded attempt (3 s) fits with room for a loaded machine, the
  // endpoints one after another (16 × 3 s) would not.
  const stack = useTestStack({
    PAY_OUTCOME_WAIT_MS: '8000',
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_RETRY_SCHEDULE_MS: Array.from({ length: 20 }, (_, i) => (i === 0 ? 0 : 200)).join(','),
  });
  const receivers: WebhookReceiver[] = [];
  let release = () => {};
  afterEach(async () => {
    release();
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  /** One merchant whose 16 endpoints accept every request and answer none until `release()`. */
  async function merchantWithHangingEndpoints() {
    const released = new Promise<Reply>((resolve) => {
      release = () => resolve({ status: 200 });
    });
    for (let i = 0; i < ENDPOINTS; i++) receivers.push(await startWebhookReceiver(() => released));
    const merchant = await stack.createMerchant({ webhookUrl: receivers[0]!.url });
    for (const receiver of receivers.slice(1)) {
      const res = await fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, enabledEvents: ['*'] }),
      });
      expect(res.status).toBe(201);
    }
    return merchant;
  }

  /** Contact, code and card through the hosted page's forms; the Pay post's answer and how long it took. */
  async function payOnPage(cartId: string): Promise<{ answer: Response; answeredInMs: number }> {
    const visit = await visitCheckout(stack.checkoutUrl, cartId);
    const post = (path: string, fields: Record<string, string>) => postCheckoutForm(stack.checkoutUrl, path, cartId, visit, fields);
    expect((await post('/contact', { contact: 'jane.doe@example.com' })).status).toBe(303);
    expect((await post('/code', { code: stack.config.sandboxOtp })).status).toBe(303);
    const started = performance.now();
    const answer = await post('/card', { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' });
    return { answer, answeredInMs: Math.round(performance.now() - started) };
  }

  /** The Pay answer is the outcome (the redirect to successUrl), within the page's own wait for it plus a second. */
  function expectOutcomeInTime(cartId: string, { answer, answeredInMs }: { answer: Response; answeredInMs: number }) {
    expect(
      { status: answer.status, location: answer.headers.get('location'), inTime: answeredInMs <= stack.config.payOutcomeWaitMs + 1_000 },
      `the Pay answer came after ${answeredInMs} ms (PAY_OUTCOME_WAIT_MS ${stack.config.payOutcomeWaitMs})`,
    ).toEqual({ status: 303, location: `https://store.example/success?cartId=${cartId}`, inTime: true });
  }

  /** Once the endpoints answer: each has every event delivered, and never received one after a later one. */
  async function expectDeliveredInOrder(cartId: string, events: string[]) {
    const recorded = await waitFor(
      async () => {
        const rows = await stack.db<{ id: string; sequence: number; event: string }[]>`
          select id, sequence, event from webhook_events where cart_id = ${cartId} order by sequence`;
        return rows.length === events.length ? rows : undefined;
      },
      { what: `the cart's ${events.length} events` },
    );
    expect(recorded.map((e) => e.event)).toEqual(events);
    release();
    await waitFor(
      async () => {
        const [row] = await stack.db<{ pending: number }[]>`
          select count(*)::int as pending from webhook_deliveries d join webhook_events e on e.id = d.event_id
          where e.cart_id = ${cartId} and d.status <> 'delivered'`;
        return row!.pending === 0 ? true : undefined;
      },
      { what: 'every event delivered to every endpoint', timeoutMs: 60_000 },
    );
    const [deliveries] = await stack.db<{ count: number }[]>`
      select count(*)::int as count from webhook_deliveries d join webhook_events e on e.id = d.event_id where e.cart_id = ${cartId}`;
    expect(deliveries!.count).toBe(ENDPOINTS * events.length);
    for (const receiver of receivers) {
      const arrived = receiver.requests.map((r) => (JSON.parse(r.rawBody) as WebhookEventBody).sequence);
      expect(arrived, receiver.url).toEqual([...arrived].sort((a, b) => a - b));
      expect(new Set(arrived), receiver.url).toEqual(new Set(recorded.map((e) => e.sequence)));
    }
  }

  it('answers Pay in time, then delivers order_created and a refund after it, in order, to all 16 endpoints', async () => {
    const merchant = await merchantWithHangingEndpoints();
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    expectOutcomeInTime(cartId, await payOnPage(cartId));
    // The refund's event goes by the other path (the refund's own activity), under the same order.
    expect((await merchantApi(stack, merchant.apiKey).refund(cartId, { amount: 1000 })).status).toBe(201);
    await expectDeliveredInOrder(cartId, ['order_created', 'order_refunded']);
  });

  it('answers Pay in time for a manual capture, then delivers order_created before the capture’s order_updated to all 16 endpoints', async () => {
    const merchant = await merchantWithHangingEndpoints();
    const request = validCartRequest(merchant.platformUuid);
    request.cartObject.cart.captureMethod = 'manual';
    const cartId = await createCartId(stack.apiUrl, request);
    expectOutcomeInTime(cartId, await payOnPage(cartId));
    expect((await merchantApi(stack, merchant.apiKey).capture(cartId)).status).toBe(200);
    await expectDeliveredInOrder(cartId, ['order_created', 'order_updated']);
  });
});
