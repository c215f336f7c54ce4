import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { Order } from '../../core/orders/order-schema.js';
import { CART_EVENT_SCHEMAS, testEventBodySchema, WEBHOOK_TEST_EVENT, type WebhookEventBody } from '../../core/webhooks/events.js';
import { sendTestWebhook } from '../../core/webhooks/test-event.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** Long enough for a session to be paid on a loaded machine, short enough to watch one be abandoned. */
const LIFETIME_SECONDS = 20;

describe('webhook payloads: every event a real session sends is what its schema (and so /openapi.json and docs/webhooks.md) says', () => {
  const stack = useTestStack({ SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS), WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500' });
  const shop = useReceivingMerchant(stack, 'Schema Store');

  /** The cart's events as received, verified over their raw bytes, in sequence order: `[event, status]` each. */
  const received = (cartId: string, count: number) =>
    waitFor(
      () => {
        const events = [...shop.receiver.processed.values()]
          .filter((request) => request.headers['x-client-event'] !== WEBHOOK_TEST_EVENT)
          .map((request) => {
            const verified = verifyWebhook(request.rawBody, request.headers, shop.merchant.webhookSecret);
            if (!verified.valid) throw new Error(`a webhook failed verification: ${verified.reason}`);
            expect(request.headers['x-client-signature']).toBe(request.headers['webhook-signature']);
            expect(request.headers['x-client-event']).toBe(verified.event.event);
            return verified.event;
          })
          .filter((event) => event.data.cartId === cartId)
          .sort((a, b) => a.sequence - b.sequence);
        return events.length === count ? events : undefined;
      },
      { timeoutMs: 60_000, what: `${count} webhooks for ${cartId}` },
    );

  /** Each body through the strict schema of its event: an unknown, missing or mistyped field fails. */
  const parsed = (events: WebhookEventBody[]) =>
    events.map((event) => {
      const result = CART_EVENT_SCHEMAS[event.event].safeParse(event);
      expect(result.error, `${event.event}: ${JSON.stringify(event)}`).toBeUndefined();
      return [event.event, event.data.status, event.sequence];
    });

  /** The order as the Order API gives it now: the model itself, and what only the API adds. */
  const order = async (cartId: string) => {
    const { expiresOn, refunds, webhooks, ...model } = (await (await shop.api.get(`/orders/${cartId}`)).json()) as Order;
    return { model, more: { expiresOn, refunds, webhooks } };
  };

  it('order_created and order_refunded of a card payment: the order as the Order API gives it, with who paid', async () => {
    const session = await shop.driver.verifiedSession();
    expect((await shop.driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    expect((await shop.api.refund(session.cartId, { amount: 1000, reason: 'Damaged in transit' })).status).toBe(201);
    const events = await received(session.cartId, 2);
    expect(parsed(events)).toEqual([
      ['order_created', 'paid', 1],
      ['order_refunded', 'partially_refunded', 2],
    ]);
    const [created, refunded] = events;
    expect(created!.data).toMatchObject({ customer: { email: 'jane.doe@example.com' }, capturedAmount: 4498, refundedTotal: 0, paidAt: expect.any(String) });

    // One model: the last event's data is the Order API's order, field for field, but for the refund it announces.
    const { model, more } = await order(session.cartId);
    const { refund, ...latest } = refunded!.data;
    expect(latest).toEqual(model);
    expect(refund).toMatchObject({ amount: 1000, refundedTotal: model.refundedTotal });
    expect(model).toMatchObject({ customer: { email: 'jane.doe@example.com' }, refundedTotal: 1000, captureMethod: 'automatic', failureCode: null });
    await waitFor(async () => ((await order(session.cartId)).more.webhooks.every((w) => w.status === 'delivered') ? true : undefined), {
      what: 'both deliveries recorded',
    });
    const attempts = (await order(session.cartId)).more.webhooks.flatMap((w) => w.attempts);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(attempts.map((a) => a.endpointId)).size).toBe(1);
    expect(more.expiresOn).toEqual(expect.any(String));
  });

  it('order_updated of a declined card', async () => {
    const session = await shop.driver.verifiedSession();
    expect((await shop.driver.pay(session, SANDBOX_CARDS.declined)).status).toBe('failed');
    expect(parsed(await received(session.cartId, 1))).toEqual([['order_updated', 'failed', 1]]);
  });

  it('order_created (authorized), order_updated (captured) and order_refunded of a manual capture, and order_cancelled of a void', async () => {
    const captured = await shop.driver.verifiedSession({ captureMethod: 'manual' });
    const voided = await shop.driver.verifiedSession({ captureMethod: 'manual' });
    for (const session of [captured, voided]) expect((await shop.driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('authorized');
    expect((await shop.api.capture(captured.cartId, { amount: 3000 })).status).toBe(200);
    expect((await shop.api.refund(captured.cartId, { amount: 3000 })).status).toBe(201);
    expect((await shop.api.void(voided.cartId)).status).toBe(200);
    const capturedEvents = await received(captured.cartId, 3);
    expect(parsed(capturedEvents)).toEqual([
      ['order_created', 'authorized', 1],
      ['order_updated', 'paid', 2],
      ['order_refunded', 'refunded', 3],
    ]);
    expect(capturedEvents[1]?.data).toMatchObject({ captureMethod: 'manual', capturedAmount: 3000 });
    const voidedEvents = await received(voided.cartId, 2);
    expect(parsed(voidedEvents)).toEqual([
      ['order_created', 'authorized', 1],
      ['order_cancelled', 'cancelled', 2],
    ]);
    // A void is the merchant's: the event and the Order API say so alike.
    expect(voidedEvents[1]?.data).toMatchObject({ cancelledBy: 'merchant', capturedAmount: null });
    expect((await order(voided.cartId)).model).toMatchObject({ status: 'cancelled', cancelledBy: 'merchant', customer: { email: 'jane.doe@example.com' } });
  });

  it('order_cancelled of a session the customer cancelled or the merchant expired, and order_abandoned of one nobody paid', async () => {
    const cancelled = await shop.driver.createSession();
    await shop.driver.cancel(cancelled);
    const expired = await shop.driver.createSession();
    expect((await shop.api.expire(expired.cartId)).status).toBe(200);
    const abandoned = await shop.driver.createSession();
    const [byCustomer] = await received(cancelled.cartId, 1);
    const [byMerchant] = await received(expired.cartId, 1);
    expect(parsed([byCustomer!, byMerchant!])).toEqual([
      ['order_cancelled', 'cancelled', 1],
      ['order_cancelled', 'cancelled', 1],
    ]);
    expect([byCustomer?.data.cancelledBy, byMerchant?.data.cancelledBy]).toEqual(['customer', 'merchant']);
    expect(parsed(await received(abandoned.cartId, 1))).toEqual([['order_abandoned', 'abandoned', 1]]);
  });

  it('webhook_test, the dashboard’s test event', async () => {
    const { eventId } = await sendTestWebhook(stack.db, stack.config, shop.merchant.platformUuid);
    const request = [...shop.receiver.processed.values()].find((r) => r.headers['webhook-id'] === eventId);
    expect(request?.headers['x-client-event']).toBe(WEBHOOK_TEST_EVENT);
    const verified = verifyWebhook(request!.rawBody, request!.headers, shop.merchant.webhookSecret);
    expect(verified.valid).toBe(true);
    expect(testEventBodySchema.safeParse(JSON.parse(request!.rawBody)).error).toBeUndefined();
  });
});
