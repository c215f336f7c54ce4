import { describe, expect, it } from 'vitest';
import type { PaymentLink } from '../../core/links/payment-link-schema.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { horizontalOverflow, skipWithoutChromium } from '../support/chromium.js';
import { checkoutSteps } from '../support/checkout-steps.js';
import { validCartRequest } from '../support/fixtures.js';
import { useReceivingMerchant } from '../support/receiving-merchant.js';

/**
 * A payment link in headless Chromium at 375 px, as a customer follows it: each visit opens a session
 * of its own; one is paid through the page (code, card, Pay) and its signed order_created names the
 * link; with maxUses reached, or once the merchant closed it, the link answers its 410 page.
 */
describe.skipIf(skipWithoutChromium())('payment links in the browser', () => {
  // The link's url is built from CHECKOUT_BASE_URL: it must lead to this page.
  const checkout = useBrowserCheckout({ name: 'Link Store' }, {}, { checkoutAtItsBaseUrl: true });
  const { stack } = checkout;
  const steps = checkoutSteps('en');
  const shop = useReceivingMerchant(stack, 'Link Store');

  async function createLink(extra: { maxUses?: number } = {}): Promise<PaymentLink> {
    const { cartObject } = validCartRequest(shop.merchant.platformUuid);
    const site = checkout.merchant().baseUrl;
    cartObject.cart.merchantUrls = { successUrl: `${site}/success`, failureUrl: `${site}/failure` };
    const res = await fetch(`${stack.apiUrl}/v2/merchant/payment-links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cartObject, ...extra }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as PaymentLink;
  }

  /** Follows the link in a fresh page; answers the page and the cartId it landed on. */
  async function follow(link: PaymentLink) {
    const watched = await checkout.blank();
    const response = await watched.page.goto(link.url);
    expect(response?.status()).toBe(200);
    const url = new URL(watched.page.url());
    expect(url.pathname).toBe('/');
    return { page: watched.page, cartId: url.searchParams.get('token')! };
  }

  async function expectGone(link: PaymentLink) {
    const { page } = await checkout.blank();
    const response = await page.goto(link.url);
    expect(response?.status()).toBe(410);
    expect(await page.getByRole('heading').textContent()).toBe('This payment link is no longer available');
    expect(await page.getByRole('link', { name: 'Return to Test Store' }).getAttribute('href')).toBe('https://store.example');
    expect(await horizontalOverflow(page)).toBe(0);
  }

  const verifiedEvents = (cartId: string, name: string): WebhookEventBody[] =>
    shop.receiver.requests
      .map((r) => verifyWebhook(r.rawBody, r.headers, shop.merchant.webhookSecret))
      .flatMap((v) => (v.valid && v.event.data.cartId === cartId && v.event.event === name ? [v.event] : []));

  it('opens a session per visit; the one paid sends order_created with the link, and maxUses 1 then closes the link', async () => {
    const link = await createLink({ maxUses: 1 });
    const first = await follow(link);
    const second = await follow(link);
    expect(first.cartId).not.toBe(second.cartId);

    await steps.verifyContactAndCode(second.page);
    await steps.payWith(second.page, '4111 1111 1111 1111');
    await second.page.waitForURL((url) => url.origin === checkout.merchant().baseUrl && url.pathname === '/success', { timeout: 20_000 });

    await expect.poll(() => verifiedEvents(second.cartId, 'order_created'), { timeout: 15_000 }).toHaveLength(1);
    expect(verifiedEvents(second.cartId, 'order_created')[0]!.data).toMatchObject({
      status: 'paid',
      paymentLinkId: link.id,
      createdWith: 'api_key',
    });
    await expectGone(link);
  });

  it('refuses Pay at the card on a second session once the first used the link up, and charges nothing', async () => {
    const link = await createLink({ maxUses: 1 });
    const first = await follow(link);
    const second = await follow(link);
    await steps.verifyContactAndCode(first.page);
    await steps.verifyContactAndCode(second.page);

    await steps.payWith(first.page, '4111 1111 1111 1111');
    await first.page.waitForURL((url) => url.origin === checkout.merchant().baseUrl && url.pathname === '/success', { timeout: 20_000 });
    await steps.payWith(second.page, '4111 1111 1111 1111');
    // The words of web/i18n `refusal.payment_link_unavailable`, at the card step the customer is still on.
    await expect.poll(() => second.page.locator('body').textContent()).toContain('This payment link is no longer available');
    expect(await second.page.locator('#step').getAttribute('data-step')).toBe('card');
    expect(await horizontalOverflow(second.page)).toBe(0);
    expect(verifiedEvents(second.cartId, 'order_created')).toEqual([]);
  }, 120_000);

  it('answers the 410 page once the merchant closed the link', async () => {
    const link = await createLink();
    await follow(link);
    const closed = await fetch(`${stack.apiUrl}/v2/merchant/payment-links/${link.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${shop.merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ active: false }),
    });
    expect(closed.status).toBe(200);
    await expectGone(link);
  });
});
