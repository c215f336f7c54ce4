import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS, sandboxRecord } from '../../core/checkout/payment-processors/sandbox.js';
import type { Order, Refund } from '../../core/orders/order-schema.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import type { ErrorBody } from '../support/merchant-api.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** validCartRequest's total: what the card is authorized for. */
const AUTHORIZED = 4498;
/** The hold, in seconds: long enough to capture within it on a loaded machine, short enough to watch it run out. */
const HOLD_SECONDS = 10;

describe('manual capture: authorize at checkout, capture or let the hold expire, each announced by signed webhooks', () => {
  const stack = useTestStack({ AUTHORIZATION_HOLD_DAYS: String(HOLD_SECONDS / 86_400), WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500' });
  const shop = useReceivingMerchant(stack, 'Ship Later Store');

  const order = async (cartId: string) => (await (await shop.api.get(`/orders/${cartId}`)).json()) as Order;

  /** The cart's events the receiver acknowledged, each verified over its raw bytes with the merchant's secret, in sequence order. */
  const eventsOf = (cartId: string): WebhookEventBody[] =>
    [...shop.receiver.processed.values()]
      .map((request) => {
        const verified = verifyWebhook(request.rawBody, request.headers, shop.merchant.webhookSecret);
        if (!verified.valid) throw new Error(`a webhook failed verification: ${verified.reason}`);
        return verified.event;
      })
      .filter((event) => event.data.cartId === cartId)
      .sort((a, b) => a.sequence - b.sequence);
  const delivered = (cartId: string, count: number) =>
    waitFor(
      () => {
        const events = eventsOf(cartId);
        return events.length === count ? events : undefined;
      },
      { timeoutMs: 30_000, what: `${count} verified webhooks for ${cartId}` },
    );

  async function expectError(res: Response, status: number, code: string, path: string): Promise<ErrorBody> {
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(body.code).toBe(code);
    expect(body.errors.map((e) => e.path)).toEqual([path]);
    return body;
  }

  async function authorizedCart(): Promise<string> {
    const session = await shop.driver.verifiedSession({ captureMethod: 'manual' });
    const state = await shop.driver.pay(session, SANDBOX_CARDS.approved);
    expect(state).toMatchObject({ status: 'authorized', step: 'done', authorization: { holdExpiresAt: expect.any(String) as string } });
    return session.cartId;
  }

  it('authorizes, captures part (the rest released), refunds part of the captured amount, and never more than it', async () => {
    const cartId = await authorizedCart();
    expect(await order(cartId)).toMatchObject({ status: 'authorized', captureMethod: 'manual', capturedAmount: null, amount: AUTHORIZED });
    // Nothing is captured yet, so nothing can be refunded.
    await expectError(await shop.api.refund(cartId, { amount: 100 }), 409, 'ORDER_NOT_PAID', 'cartId');
    await expectError(await shop.api.capture(cartId, { amount: AUTHORIZED + 1 }), 422, 'AMOUNT_EXCEEDS_AUTHORIZED', 'amount');
    await expectError(await shop.api.capture(cartId, { amount: 0 }), 400, 'VALIDATION_ERROR', 'amount');

    const captured = await shop.api.capture(cartId, { amount: 3000 });
    expect(captured.status).toBe(200);
    expect(await captured.json()).toMatchObject({ cartId, status: 'paid', capturedAmount: 3000, captureMethod: 'manual' });
    // The acquirer captured 3000 of the hold; the rest is released.
    const [charge] = await stack.db<{ captured: number }[]>`
      select s.captured_amount::int as captured from sandbox_charges s join carts c on c.payment_reference = s.charge_id where c.cart_id = ${cartId}`;
    expect(charge!.captured).toBe(3000);
    expect(sandboxRecord(cartId)).toMatchObject({ captured: 3000, voided: false, charges: 1 });
    // Captured once: a capture of another amount is refused with what was captured, and so is a void.
    const again = await expectError(await shop.api.capture(cartId, { amount: 1000 }), 409, 'CAPTURE_ALREADY_DECIDED', 'amount');
    expect(again.errors[0]!.message).toBe('must be 3000, the amount captured on this order: an order is captured once');
    await expectError(await shop.api.void(cartId), 409, 'ORDER_NOT_AUTHORIZED', 'cartId');

    const first = (await (await shop.api.refund(cartId, { amount: 1000, reason: 'One item out of stock' })).json()) as Refund;
    expect(first).toMatchObject({ status: 'succeeded', amount: 1000 });
    const tooMuch = await expectError(await shop.api.refund(cartId, { amount: 2500 }), 422, 'AMOUNT_EXCEEDS_REFUNDABLE', 'amount');
    expect(tooMuch.message).toBe('At most 2000 (minor units of EUR) remains refundable on this order of 3000 captured; ask for 2000 or less.');
    expect(await order(cartId)).toMatchObject({ status: 'partially_refunded', refundedTotal: 1000, capturedAmount: 3000 });

    const events = await delivered(cartId, 3);
    expect(events.map((e) => [e.event, e.data.status])).toEqual([
      ['order_created', 'authorized'],
      ['order_updated', 'paid'],
      ['order_refunded', 'partially_refunded'],
    ]);
    const card = { brand: 'visa', last4: '1111', threeDSecure: { result: 'not_required' } };
    expect(events[0]!.data).toMatchObject({ captureMethod: 'manual', capturedAmount: null, payment: card });
    expect(events[1]!.data).toMatchObject({ captureMethod: 'manual', capturedAmount: 3000, payment: card });
    expect(events[2]!.data).toMatchObject({
      amount: AUTHORIZED,
      captureMethod: 'manual',
      capturedAmount: 3000,
      refundedTotal: 1000,
      refund: { id: first.id, amount: 1000, refundedTotal: 1000, reason: 'One item out of stock' },
    });
    expect(await shop.driver.handleOf(cartId).result()).toEqual({ status: 'paid' });
  });

  it('voids a hold nobody captured when its timer runs out: order_cancelled with authorization_expired, and nothing is captured after', async () => {
    const cartId = await authorizedCart();
    expect(await shop.driver.handleOf(cartId).result()).toEqual({ status: 'cancelled' });
    expect(sandboxRecord(cartId)).toMatchObject({ voided: true, charges: 1 });
    expect(sandboxRecord(cartId)?.captured).toBeUndefined();
    expect(await order(cartId)).toMatchObject({ status: 'cancelled', failureCode: 'authorization_expired', capturedAmount: null });

    const events = await delivered(cartId, 2);
    expect(events.map((e) => [e.event, e.data.status])).toEqual([
      ['order_created', 'authorized'],
      ['order_cancelled', 'cancelled'],
    ]);
    expect(events[1]!.data).toMatchObject({ failureCode: 'authorization_expired', captureMethod: 'manual', capturedAmount: null, cancelledBy: null });
    // The hold is gone: a late capture or void is refused, not attempted.
    await expectError(await shop.api.capture(cartId), 409, 'ORDER_NOT_AUTHORIZED', 'cartId');
    await expectError(await shop.api.void(cartId), 409, 'ORDER_NOT_AUTHORIZED', 'cartId');
  });
});
