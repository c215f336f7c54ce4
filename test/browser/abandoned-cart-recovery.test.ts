import { describe, expect, it } from 'vitest';
import { readOutboxReminders } from '../../core/checkout/otp/outbox.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { skipWithoutChromium } from '../support/chromium.js';
import { checkoutSteps } from '../support/checkout-steps.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';
import { waitFor } from '../support/wait-for.js';

/** Short enough to watch the first sessions be abandoned, long enough to pay the recovered one in a browser. */
const LIFETIME_SECONDS = 30;
/** The server's setting that shortens every reminder's delay (the carts ask for the default 60 minutes). */
const REMINDER_DELAY_SECONDS = 5;

/**
 * Abandoned-cart recovery's reminder in headless Chromium (docs/abandoned-cart-recovery.md): a customer
 * ticks "Remind me if I don't finish", verifies their email and walks away; after the delay the reminder
 * is in the sandbox outbox, and its link pays a new session whose order_created says recoveredFrom. One
 * who does not tick the box gets no reminder, while the merchant's order_abandoned still has the link.
 */
describe.skipIf(skipWithoutChromium())('the abandoned-cart reminder in the browser', () => {
  const checkout = useBrowserCheckout(
    { name: 'Reminder Store' },
    { SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS), RECOVERY_REMINDER_DELAY_SECONDS: String(REMINDER_DELAY_SECONDS) },
    { checkoutAtItsBaseUrl: true },
  );
  const { stack } = checkout;
  const steps = checkoutSteps('en');
  const shop = useReceivingMerchant(stack, 'Reminder Store Ltd');

  const recoveryCart = () =>
    shop.createCart(({ cartObject: { cart } }) => {
      const site = checkout.merchant().baseUrl;
      cart.merchantUrls = { successUrl: `${site}/success`, failureUrl: `${site}/failure` };
      cart.recovery = { enabled: true };
    });

  /** The customer proves their email on the hosted page, ticking the reminder box or not, and leaves at the card step. */
  async function verifyThenLeave(cartId: string, email: string, remind: boolean) {
    const { page } = await checkout.blank();
    expect((await page.goto(`${stack.checkoutUrl}/?token=${cartId}`))?.status()).toBe(200);
    await steps.expectStep(page, 'contact');
    const box = page.getByRole('checkbox', { name: steps.say('contact.remind') });
    expect(await box.isChecked(), 'unticked by default').toBe(false);
    if (remind) await box.check();
    await page.getByLabel(steps.say('contact.label')).fill(email);
    await page.getByRole('button', { name: steps.say('contact.submit'), exact: true }).click();
    await steps.enterCode(page);
    await page.close();
  }

  it('with the box ticked, sends the reminder after the delay; its link pays a new session with recoveredFrom', async () => {
    const [reminded, silent] = await Promise.all([recoveryCart(), recoveryCart()]);
    await Promise.all([verifyThenLeave(reminded, 'jane.doe@example.com', true), verifyThenLeave(silent, 'john.doe@example.com', false)]);

    const [reminder] = await waitFor(
      async () => {
        const found = await readOutboxReminders(stack.db, stack.config.keyring, reminded);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: (LIFETIME_SECONDS + REMINDER_DELAY_SECONDS + 60) * 1000, what: `the reminder of ${reminded}` },
    );
    expect(reminder).toMatchObject({ channel: 'email', address: 'jane.doe@example.com' });
    const abandoned = shop.signedEvents(reminded, 'order_abandoned');
    expect(abandoned).toHaveLength(1);
    expect(reminder!.recoveryUrl).toBe(abandoned[0]!.data.recoveryUrl);

    // Without the box: the workflow ends with the abandonment, no reminder, and the merchant still has the link.
    expect(await shop.driver.handleOf(silent).result()).toEqual({ status: 'abandoned' });
    expect(await readOutboxReminders(stack.db, stack.config.keyring, silent)).toEqual([]);
    expect(shop.signedEvents(silent, 'order_abandoned')[0]?.data.recoveryUrl).toMatch(/\/r\/[A-Za-z0-9_-]{22,}$/);

    const { page } = await checkout.blank();
    expect((await page.goto(reminder!.recoveryUrl))?.status()).toBe(200);
    const recovered = new URL(page.url()).searchParams.get('token')!;
    expect(recovered).not.toBe(reminded);
    await steps.expectStep(page, 'contact');
    expect(await page.getByRole('checkbox', { name: steps.say('contact.remind') }).count(), 'a recovery offers no reminder of its own').toBe(0);
    await page.getByRole('button', { name: 'Send the code to j***@example.com' }).click();
    await steps.enterCode(page);
    await steps.payWith(page, '4111 1111 1111 1111');
    const site = checkout.merchant().baseUrl;
    await page.waitForURL((u) => u.origin === site && u.pathname === '/success', { timeout: 20_000 });

    await expect.poll(() => shop.signedEvents(recovered, 'order_created'), { timeout: 15_000 }).toHaveLength(1);
    expect(shop.signedEvents(recovered, 'order_created')[0]!.data).toMatchObject({ status: 'paid', recoveredFrom: reminded, recoveryUrl: null });
    expect(await readOutboxReminders(stack.db, stack.config.keyring, reminded)).toHaveLength(1);
  }, 180_000);
});
