import { describe, expect, it } from 'vitest';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { skipWithoutChromium } from '../support/chromium.js';
import { checkoutSteps } from '../support/checkout-steps.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';

/** Short enough to watch the first session be abandoned, long enough to pay the recovered one in a browser. */
const LIFETIME_SECONDS = 30;

/**
 * An abandoned cart's recovery link in headless Chromium, as a customer follows it from the merchant's
 * email (docs/abandoned-cart-recovery.md): the usual checkout page of a new session, code, card, paid,
 * and the signed order_created names the abandoned cart as recoveredFrom.
 */
describe.skipIf(skipWithoutChromium())('abandoned-cart recovery in the browser', () => {
  // The link is built from CHECKOUT_BASE_URL: it must lead to this page.
  const checkout = useBrowserCheckout({ name: 'Recovery Store' }, { SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS) }, { checkoutAtItsBaseUrl: true });
  const { stack } = checkout;
  const steps = checkoutSteps('en');
  const shop = useReceivingMerchant(stack, 'Recovery Store');

  it('opens the checkout page of a new session, which is paid with code and card; order_created says recoveredFrom', async () => {
    const site = checkout.merchant().baseUrl;
    const abandoned = await shop.createCart(({ cartObject: { cart } }) => {
      cart.merchantUrls = { successUrl: `${site}/success`, failureUrl: `${site}/failure` };
      cart.recovery = { enabled: true };
    });
    // The customer proved a contact before walking away: the recovered page offers it, masked.
    const { driver } = shop;
    const first = { cartId: abandoned, handle: driver.handleOf(abandoned) };
    await driver.sendCode(first, 'jane.doe@example.com');
    await driver.verify(first, await driver.sentCode(first));

    await expect.poll(() => shop.signedEvents(abandoned, 'order_abandoned'), { timeout: (LIFETIME_SECONDS + 60) * 1000, interval: 500 }).toHaveLength(1);
    const recoveryUrl = shop.signedEvents(abandoned, 'order_abandoned')[0]!.data.recoveryUrl!;

    const { page } = await checkout.blank();
    expect((await page.goto(recoveryUrl))?.status()).toBe(200);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/');
    const recovered = url.searchParams.get('token')!;
    expect(recovered).not.toBe(abandoned);

    await steps.expectStep(page, 'contact');
    await expect.poll(() => page.locator('main').innerText()).toContain('j***@example.com');
    expect(await page.content(), 'the address itself is never on the page').not.toContain('jane.doe@example.com');
    await page.getByRole('button', { name: 'Send the code to j***@example.com' }).click();
    await steps.enterCode(page);
    await steps.payWith(page, '4111 1111 1111 1111');
    await page.waitForURL((u) => u.origin === site && u.pathname === '/success', { timeout: 20_000 });

    await expect.poll(() => shop.signedEvents(recovered, 'order_created'), { timeout: 15_000 }).toHaveLength(1);
    expect(shop.signedEvents(recovered, 'order_created')[0]!.data).toMatchObject({
      status: 'paid',
      recoveredFrom: abandoned,
      recoveryUrl: null,
      createdWith: 'api_key',
      customer: { email: 'jane.doe@example.com' },
    });
  });
});
