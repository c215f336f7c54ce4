import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS, sandboxRecord } from '../../core/checkout/payment-processors/sandbox.js';
import type { Order } from '../../core/orders/order-schema.js';
import type { ErrorBody } from '../support/merchant-api.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** validCartRequest's total: what the card is authorized for. */
const AUTHORIZED = 4498;

/**
 * A capture is decided once per order (docs/decisions/manual-capture.md): the same capture again
 * answers what the first answered, another amount is refused with CAPTURE_ALREADY_DECIDED, and
 * capture, void and expire replay their first answer for a repeated Idempotency-Key.
 */
describe('manual capture is idempotent by request', () => {
  const stack = useTestStack();
  const shop = useReceivingMerchant(stack, 'Capture Twice Store');

  async function authorizedCart(): Promise<string> {
    const session = await shop.driver.verifiedSession({ captureMethod: 'manual' });
    expect((await shop.driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('authorized');
    return session.cartId;
  }

  /** Status and body text, read once. */
  async function answerOf(res: Response): Promise<{ status: number; text: string; replayed: string | null }> {
    return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') };
  }

  async function expectError(res: Response, status: number, code: string, path: string): Promise<ErrorBody> {
    const body = (await res.json()) as ErrorBody;
    expect({ status: res.status, body }).toMatchObject({ status, body: { code, errors: [{ path }] } });
    expect(body.errors).toHaveLength(1);
    return body;
  }

  /** The order's webhooks all answered by the receiver: what the order says changes after a capture's answer. */
  const webhooksDelivered = (cartId: string, count: number) =>
    waitFor(
      async () => {
        const order = (await (await shop.api.get(`/orders/${cartId}`)).json()) as Order;
        const delivered = order.webhooks.filter((w) => w.status === 'delivered');
        return delivered.length >= count ? order : undefined;
      },
      { timeoutMs: 30_000, what: `${count} delivered webhooks of ${cartId}` },
    );

  it('answers a repeated capture with the first answer, same status and body; {} and {amount: the total} are the same capture', async () => {
    const cartId = await authorizedCart();
    const first = await answerOf(await shop.api.capture(cartId, { amount: 1000 }));
    expect(first.status, first.text).toBe(200);
    expect(JSON.parse(first.text)).toMatchObject({ cartId, status: 'paid', capturedAmount: 1000 });
    // The order moves on after the answer (its webhooks are delivered): the repeat still answers the first answer.
    await webhooksDelivered(cartId, 2);
    const again = await answerOf(await shop.api.capture(cartId, { amount: 1000 }));
    expect({ status: again.status, text: again.text }).toEqual({ status: first.status, text: first.text });
    expect(sandboxRecord(cartId)).toMatchObject({ captured: 1000, charges: 1 });

    const whole = await authorizedCart();
    const all = await answerOf(await shop.api.capture(whole, {}));
    expect(all.status, all.text).toBe(200);
    expect(JSON.parse(all.text)).toMatchObject({ cartId: whole, status: 'paid', capturedAmount: AUTHORIZED });
    for (const body of [{ amount: AUTHORIZED }, {}]) {
      const repeat = await answerOf(await shop.api.capture(whole, body));
      expect({ status: repeat.status, text: repeat.text }).toEqual({ status: all.status, text: all.text });
    }
  });

  it('captures one of two different amounts asked at once, refuses the other with CAPTURE_ALREADY_DECIDED naming what was captured, and any other amount later', async () => {
    for (let round = 0; round < 2; round++) {
      const cartId = await authorizedCart();
      const [a, b] = await Promise.all([shop.api.capture(cartId, { amount: 1000 }), shop.api.capture(cartId, { amount: 4000 })]);
      const answers = [
        { asked: 1000, status: a.status, body: (await a.json()) as Order & ErrorBody },
        { asked: 4000, status: b.status, body: (await b.json()) as Order & ErrorBody },
      ];
      expect(answers.map((x) => x.status).sort()).toEqual([200, 409]);
      const won = answers.find((x) => x.status === 200)!;
      const lost = answers.find((x) => x.status === 409)!;
      expect(won.body).toMatchObject({ status: 'paid', capturedAmount: won.asked });
      expect(lost.body).toMatchObject({ code: 'CAPTURE_ALREADY_DECIDED', errors: [{ path: 'amount' }] });
      expect(lost.body.message).toContain(String(won.asked));
      expect(lost.body.errors[0]!.message).toContain(String(won.asked));
      expect(sandboxRecord(cartId)).toMatchObject({ captured: won.asked, charges: 1 });

      // Later: another amount is refused the same way; the winner's amount answers the winner's answer.
      for (const amount of [lost.asked, 2000]) {
        const later = await expectError(await shop.api.capture(cartId, { amount }), 409, 'CAPTURE_ALREADY_DECIDED', 'amount');
        expect(later.message).toContain(String(won.asked));
      }
      const repeat = await shop.api.capture(cartId, { amount: won.asked });
      expect(repeat.status).toBe(200);
      expect(await repeat.json()).toEqual(won.body);
      // A void after the capture is still refused: the order holds no authorization any more.
      await expectError(await shop.api.void(cartId), 409, 'ORDER_NOT_AUTHORIZED', 'cartId');
    }
  });

  const key = (name: string) => ({ 'Idempotency-Key': `${name}-${crypto.randomUUID()}` });
  const malformedKey = { 'Idempotency-Key': 'short' };

  it('replays the first answer of a capture for a repeated Idempotency-Key; another request with the key is IDEMPOTENCY_CONFLICT', async () => {
    const cartId = await authorizedCart();
    const captureKey = key('capture');
    const first = await answerOf(await shop.api.capture(cartId, { amount: 1500 }, captureKey));
    expect(first.status, first.text).toBe(200);
    expect(first.replayed).toBeNull();
    await webhooksDelivered(cartId, 2);
    expect(await answerOf(await shop.api.capture(cartId, { amount: 1500 }, captureKey))).toEqual({ status: 200, text: first.text, replayed: 'true' });
    await expectError(await shop.api.capture(cartId, { amount: 1600 }, captureKey), 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key');
    await expectError(await shop.api.void(cartId, captureKey), 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key');
    await expectError(await shop.api.capture(await authorizedCart(), { amount: 1500 }, captureKey), 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key');
    // {} and {amount: the total} are one request under a key too.
    const whole = await authorizedCart();
    const wholeKey = key('capture-all');
    const all = await answerOf(await shop.api.capture(whole, {}, wholeKey));
    expect(all.status, all.text).toBe(200);
    expect(await answerOf(await shop.api.capture(whole, { amount: AUTHORIZED }, wholeKey))).toEqual({ status: 200, text: all.text, replayed: 'true' });
    await expectError(await shop.api.capture(cartId, { amount: 1500 }, malformedKey), 400, 'VALIDATION_ERROR', 'Idempotency-Key');
  });

  it('replays the first answer of a void for a repeated Idempotency-Key; another request with the key is IDEMPOTENCY_CONFLICT', async () => {
    const cartId = await authorizedCart();
    const voidKey = key('void');
    const first = await answerOf(await shop.api.void(cartId, voidKey));
    expect(first.status, first.text).toBe(200);
    expect(JSON.parse(first.text)).toMatchObject({ cartId, status: 'cancelled' });
    expect(await answerOf(await shop.api.void(cartId, voidKey))).toEqual({ status: 200, text: first.text, replayed: 'true' });
    // Without the key, a second void is what it was: the order is no longer authorized.
    await expectError(await shop.api.void(cartId), 409, 'ORDER_NOT_AUTHORIZED', 'cartId');
    await expectError(await shop.api.void(await authorizedCart(), voidKey), 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key');
    await expectError(await shop.api.void(cartId, malformedKey), 400, 'VALIDATION_ERROR', 'Idempotency-Key');
    expect(sandboxRecord(cartId)).toMatchObject({ voided: true, charges: 1 });
  });

  it('replays the first answer of an expire for a repeated Idempotency-Key; another request with the key is IDEMPOTENCY_CONFLICT', async () => {
    const cartId = (await shop.driver.createSession()).cartId;
    const expireKey = key('expire');
    const first = await answerOf(await shop.api.expire(cartId, expireKey));
    expect(first.status, first.text).toBe(200);
    expect(JSON.parse(first.text)).toEqual({ cartId, status: 'cancelled', cancelledBy: 'merchant' });
    expect(await answerOf(await shop.api.expire(cartId, expireKey))).toEqual({ status: 200, text: first.text, replayed: 'true' });
    // Without the key, a second expire is what it was: the session has ended.
    await expectError(await shop.api.expire(cartId), 409, 'SESSION_ENDED', 'cartId');
    await expectError(await shop.api.expire((await shop.driver.createSession()).cartId, expireKey), 409, 'IDEMPOTENCY_CONFLICT', 'Idempotency-Key');
    await expectError(await shop.api.expire(cartId, malformedKey), 400, 'VALIDATION_ERROR', 'Idempotency-Key');
  });
});
