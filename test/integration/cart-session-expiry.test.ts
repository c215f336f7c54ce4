import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { searchAttributes } from '../../workflows/cart-session/messages.js';
import { useTestStack } from '../support/test-stack.js';
import { insightFunnel } from '../../core/insights/insights.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { cartSessionDriver, historyEvents, ledgerRow, recordedEvents } from '../support/cart-session-driver.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { cartSessionHandle } from '../../workflows/cart-session/client.js';

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

  it('gives a cart created with sessionMinutes: 5 a 5-minute session, whatever the server default: expiresOn, the page’s countdown, the timer', async () => {
    const request = validCartRequest((await stack.createMerchant()).platformUuid);
    request.cartObject.cart.sessionMinutes = 5;
    const before = Date.now();
    const res = await postCart(stack.apiUrl, request);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { cartId: string; expiresOn: string; cartData: unknown } };
    expect(data.cartData).toEqual(request.cartObject);
    const lifetime = Date.parse(data.expiresOn) - before;
    expect(lifetime).toBeGreaterThanOrEqual(5 * 60_000);
    expect(lifetime).toBeLessThan(5 * 60_000 + 5_000);
    const [row] = await stack.db<{ expires_on: Date }[]>`select expires_on from carts where cart_id = ${data.cartId}`;
    expect(row!.expires_on.toISOString()).toBe(data.expiresOn);

    const page = await (await fetch(`${stack.checkoutUrl}/?token=${data.cartId}`)).text();
    expect(page).toContain(`data-expires-at="${data.expiresOn}"`);

    // Temporal fires the session's one timer after exactly its startToFireTimeout: 300 s, not the server's 3 s.
    const handle = cartSessionHandle(stack.temporal.client, data.cartId);
    const timerSeconds = async () => {
      const timer = (await historyEvents(handle)).find((e) => e.timerStartedEventAttributes);
      return timer ? Number(timer.timerStartedEventAttributes!.startToFireTimeout!.seconds) : undefined;
    };
    await expect.poll(timerSeconds, { timeout: 15_000 }).toBe(5 * 60);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await handle.terminate('the test has seen its timer; nobody waits 5 minutes');

    // The longest a merchant may ask for: the clock says hours, not 1439 minutes.
    request.cartObject.cart.sessionMinutes = 1440;
    const day = ((await (await postCart(stack.apiUrl, request)).json()) as { data: { cartId: string } }).data.cartId;
    const dayPage = await (await fetch(`${stack.checkoutUrl}/?token=${day}`)).text();
    expect(dayPage).toMatch(/class="countdown-clock" aria-hidden="true">2[34]:[0-5]\d:[0-5]\d</);
    await cartSessionHandle(stack.temporal.client, day).terminate('the test has seen its clock');
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
