import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { cartEvents } from '../support/cart-events.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * "Replay now" (core/webhooks/replay.ts): a replay is one attempt made during the request and answered
 * with its outcome, unless an earlier event of the cart is still pending at the endpoint; then it waits
 * behind that one, and the answer says so. Against a real receiver, Temporal and PostgreSQL.
 */
describe('replay now: sent at once, or queued behind the cart’s pending event', () => {
  // A failed attempt is retried after a minute: the event stays pending for the whole test.
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0,60000', WEBHOOK_MANUAL_SENDS_PER_HOUR: '40' });
  let healthy: WebhookReceiver;
  /** Answers 500 to every order_updated, 200 to the rest. */
  let failing: WebhookReceiver;
  beforeAll(async () => {
    healthy = await startWebhookReceiver();
    failing = await startWebhookReceiver((request) => ({ status: request.headers['x-client-event'] === 'order_updated' ? 500 : 200 }));
  });
  afterAll(() => Promise.all([healthy?.close(), failing?.close()]));

  const received = (by: WebhookReceiver, eventId: string) => by.requests.filter((r) => r.headers['webhook-id'] === eventId);

  function api(merchant: CreatedMerchant) {
    return async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.apiUrl}/v2/merchant${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as { data: Array<{ id: string }>; deliveries: Array<Record<string, unknown>> } };
    };
  }

  /** A merchant whose one cart has recorded `processing` then `paid`, both handed to delivery. */
  async function cartWithTwoEvents(receiver: WebhookReceiver) {
    const merchant = await stack.createMerchant({ name: 'Replay Now Store', webhookUrl: receiver.url });
    const call = api(merchant);
    const endpointId = (await call('GET', '/webhook-endpoints')).json.data[0]!.id;
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const events = cartEvents(stack);
    const payment = { brand: 'visa', last4: '1111' };
    const processing = (await events.recordCartEvent({ cartId, event: 'order_updated', status: 'processing', payment })).eventId;
    const created = (await events.recordCartEvent({ cartId, event: 'order_created', status: 'paid', payment })).eventId;
    return { call, endpointId, cartId, processing, created };
  }

  it('sends a replay at once: the receiver has it before the answer, which says sent with its status', async () => {
    const { call, endpointId, cartId, created } = await cartWithTwoEvents(healthy);
    await waitFor(() => (received(healthy, created).length === 1 ? true : undefined), { what: 'the first delivery' });

    const asked = Date.now();
    const replay = await call('POST', `/events/${created}/replay`, { endpointId });
    const answeredInMs = Date.now() - asked;
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual({
      eventId: created,
      cartId,
      deliveries: [
        {
          endpointId,
          result: 'sent',
          attempt: { responseStatus: 200, error: null, durationMs: expect.any(Number) },
          message: expect.stringMatching(/^Sent: 200 in \d+ ms$/),
        },
      ],
    });
    const replays = received(healthy, created);
    expect(replays).toHaveLength(2);
    expect(replays[1]!.at - asked).toBeLessThan(10_000);
    expect(answeredInMs).toBeLessThan(10_000);
    const [attempt] = await stack.db<{ trigger: string; http_status: number }[]>`
      select trigger, http_status from webhook_attempts where event_id = ${created} and trigger = 'replay'`;
    expect(attempt).toEqual({ trigger: 'replay', http_status: 200 });
  });

  it('queues a replay behind the cart’s earlier event still pending at a failing endpoint, and says a second one is already queued', async () => {
    const { call, endpointId, processing, created } = await cartWithTwoEvents(failing);
    await waitFor(() => (received(failing, processing).length === 1 ? true : undefined), { what: 'the failed first attempt' });

    const first = await call('POST', `/events/${created}/replay`, { endpointId });
    expect(first.status).toBe(200);
    expect(first.json.deliveries).toEqual([{ endpointId, result: 'queued', queuedBehind: processing, message: `Queued behind ${processing}` }]);
    const second = await call('POST', `/events/${created}/replay`, { endpointId });
    expect(second.json.deliveries).toEqual([
      { endpointId, result: 'already_queued', queuedBehind: processing, message: `Already queued behind ${processing}` },
    ]);

    // Neither overtook the pending event: the paid event has not reached the endpoint.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(received(failing, created)).toHaveLength(0);
  });

  it('answers sent to 32 replays in a row to a healthy endpoint, and the receiver gets all 32', async () => {
    const { call, endpointId, created } = await cartWithTwoEvents(healthy);
    await waitFor(() => (received(healthy, created).length === 1 ? true : undefined), { what: 'the first delivery' });
    const results: string[] = [];
    for (let i = 0; i < 32; i++) results.push((await call('POST', `/events/${created}/replay`, { endpointId })).json.deliveries[0]!.result as string);
    expect(results).toEqual(Array(32).fill('sent'));
    expect(received(healthy, created)).toHaveLength(33);
  });
});
