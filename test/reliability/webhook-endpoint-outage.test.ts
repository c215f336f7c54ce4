import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { deliveryFigures } from '../support/delivery-check.js';
import { planOf, reliabilitySettings, reportFigures } from '../support/reliability.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Shortened, and longer than the default ten attempts, so that the outage below is survived in
 * seconds: 8 s of 503s spend about six attempts, and the rest come every 4 s.
 */
const RETRY_SCHEDULE_MS = [0, 200, 400, 800, 1_600, 3_000, ...Array<number>(14).fill(4_000)];
const DOWN_FOR_MS = 8_000;

/**
 * The merchant's endpoint fails half its requests (a seeded coin per request), then answers 503 to
 * everything for a while, then recovers: every event of every cart must reach it, in order per cart.
 */
describe('the merchant endpoint flapping, then down', () => {
  const { seed, trials } = reliabilitySettings('webhook-endpoint-outage');
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS.join(',') });
  let receiver: WebhookReceiver;
  let phase: 'flapping' | 'down' | 'up' = 'flapping';
  const coins = planOf(fc.boolean(), seed, 100_000);
  let answered = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver(() => {
      if (phase === 'down') return { status: 503 };
      if (phase === 'up') return { status: 200 };
      return { status: coins[answered++ % coins.length] ? 200 : 500 };
    });
  });
  afterAll(() => receiver?.close());

  it('delivers every event, in order per cart, none lost', { timeout: 600_000 }, async () => {
    const driver = cartSessionDriver(stack, (await stack.createMerchant({ webhookUrl: receiver.url })).platformUuid);
    const paths = planOf(fc.constantFrom('paid', 'declined', 'cancelled'), seed, trials);

    const checkout = async (path: string) => {
      const session = await driver.verifiedSession();
      if (path === 'paid') await driver.pay(session, SANDBOX_CARDS.approved);
      else if (path === 'declined') await driver.pay(session, SANDBOX_CARDS.declined);
      else await driver.cancel(session);
      return session.cartId;
    };
    const half = Math.ceil(trials / 2);
    const cartIds = await Promise.all(paths.slice(0, half).map(checkout));
    phase = 'down';
    const downAt = Date.now();
    cartIds.push(...(await Promise.all(paths.slice(half).map(checkout))));
    await new Promise((r) => setTimeout(r, Math.max(0, DOWN_FOR_MS - (Date.now() - downAt))));
    phase = 'flapping';

    const figures = await waitFor(
      async () => {
        const now = await deliveryFigures(stack.db, receiver, cartIds);
        return now.eventsLost === 0 ? now : undefined;
      },
      { timeoutMs: 120_000, what: 'every event acknowledged' },
    ).catch(() => deliveryFigures(stack.db, receiver, cartIds));
    const failedAttempts = receiver.requests.filter((r) => r.answered !== undefined && r.answered >= 300).length;

    reportFigures({
      suite: 'webhook-endpoint-outage',
      title: 'Merchant endpoint failing 50 % of requests, then answering 503 for 8 s',
      seed,
      trials,
      faults: { 'webhook attempts refused by the endpoint (500 or 503)': failedAttempts },
      sessionsChecked: cartIds.length,
      ...figures,
    });
    expect(figures.eventsLost).toBe(0);
    expect(figures.eventsOutOfOrder).toBe(0);
    expect(failedAttempts).toBeGreaterThan(0);
  });
});
