import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { searchAttributes } from '../../workflows/cart-session/messages.js';
import { useTestStack } from '../support/test-stack.js';
import { insightFunnel } from '../../core/insights/insights.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { cartSessionDriver, historyEvents, ledgerRow, recordedEvents } from '../support/cart-session-driver.js';

const LIFETIME_SECONDS = 3;

/** The production 45-minute timer is asserted in vertical-slice.test.ts; here the same timer, short. */
describe('cart session expiry (SESSION_LIFETIME_SECONDS=3)', () => {
  const stack = useTestStack({ SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS), PAYMENT_RESOLUTION_SECONDS: '2' });
  let driver: ReturnType<typeof cartSessionDriver>;
  beforeAll(async () => {
    driver = cartSessionDriver(stack, (await stack.createMerchant()).platformUuid);
  });

  it('abandons a session nobody paid, and tells the merchant', async () => {
    const s = await driver.createSession();
    await driver.sendCode(s);
    expect(await s.handle.result()).toEqual({ status: 'abandoned' });
    const timer = (await historyEvents(s.handle)).find((e) => e.timerStartedEventAttributes);
    expect(Number(timer?.timerStartedEventAttributes?.startToFireTimeout?.seconds)).toBe(LIFETIME_SECONDS);
    expect((await ledgerRow(stack, s.cartId))?.status).toBe('abandoned');
    expect(await recordedEvents(stack, s.cartId)).toEqual([{ sequence: 1, event: 'order_abandoned', status: 'abandoned', payment: undefined }]);
    expect((await s.handle.describe()).typedSearchAttributes.get(searchAttributes.cartStatus)).toBe('abandoned');
  });

  it('lets a payment submitted before the deadline finish after it', async () => {
    const s = await driver.createSession();
    await driver.sendCode(s);
    await driver.verify(s, stack.config.sandboxOtp);
    // The processor-error card keeps the payment busy for ~3 s of retries and 2 s of lookups, past the 3 s lifetime.
    expect(await driver.pay(s, SANDBOX_CARDS.processorError)).toMatchObject({ status: 'failed', failureCode: 'processor_error' });
    const { startTime, closeTime } = await s.handle.describe();
    expect(closeTime!.getTime() - startTime.getTime()).toBeGreaterThan(LIFETIME_SECONDS * 1000);
    expect((await recordedEvents(stack, s.cartId)).map((e) => `${e.event}:${e.status}`)).toEqual(['order_updated:processing', 'order_updated:failed']);
  });

  it('shows in the funnel where abandoned sessions stopped, as the page recorded their steps', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Funnel Store' });
    const shop = cartSessionDriver(stack, platformUuid);
    const untouched = await shop.createSession();
    const codeSent = await shop.createSession();
    const at = await visitCheckout(stack.checkoutUrl, codeSent.cartId);
    expect((await postCheckoutForm(stack.checkoutUrl, '/contact', codeSent.cartId, at, { contact: 'jane.doe@example.com' })).status).toBe(303);
    for (const s of [untouched, codeSent]) await expect.poll(async () => (await ledgerRow(stack, s.cartId))?.status, { timeout: 15_000 }).toBe('abandoned');

    const { steps } = await insightFunnel(stack.db, { merchant: { platformUuid, environment: 'sandbox' }, days: 1 });
    expect(steps.map((s) => [s.step, s.reached, s.stoppedHere.abandoned])).toEqual([
      ['created', 2, 1],
      ['page_opened', 1, 0],
      ['code_sent', 1, 1],
      ['code_verified', 0, 0],
      ['pay_attempted', 0, 0],
      ['paid', 0, 0],
    ]);
  });
});
