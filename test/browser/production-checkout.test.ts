/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createStripePaymentProcessor } from '../../core/checkout/payment-processors/stripe.js';
import { postWebhook } from '../../core/webhooks/http-post.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { launchChromium, openPage, skipWithoutChromium, untilStepReady } from '../support/chromium.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { startSmtpCatcher } from '../support/otp-providers.js';
import { PRODUCTION_SETTINGS } from '../support/production-settings.js';
import { startRecordingProxy } from '../support/stripe-mock.js';
import { useTestStack, type TestStackOptions } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** The merchant's public endpoint; only this test's delivery knows it is the receiver on this machine. */
const MERCHANT_WEBHOOK_URL = 'https://merchant.checkout.test/webhooks';

/**
 * The stack as production runs it: CHECKOUT_ENV=production with every setting it requires, codes by
 * real SMTP (to a catcher on this machine), payment through the Stripe adapter (against stripe-mock)
 * and a signed webhook verified by the merchant's receiver. What it cannot do for real is reach the
 * public internet: the https base URLs point nowhere (the browser uses the ports the stack listens
 * on), Stripe's address is stripe-mock's (production requires https, stripe-mock here is http), and
 * the delivery to the merchant's https URL lands on a local receiver (production refuses loopback;
 * that refusal is tested in test/integration/webhook-ssrf.test.ts).
 */
describe.skipIf(skipWithoutChromium())('a checkout in production, in headless Chromium', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let stripe: Awaited<ReturnType<typeof startRecordingProxy>>;
  let receiver: WebhookReceiver;
  let browser: Browser;
  // The stack reads both when it starts, after the hook below has the local servers listening.
  const env: Record<string, string> = { ...PRODUCTION_SETTINGS, WEBHOOK_RETRY_SCHEDULE_MS: '0,500,1000' };
  const options: TestStackOptions = {
    postWebhook: (input) =>
      postWebhook({ ...input, url: input.url === MERCHANT_WEBHOOK_URL ? receiver.url : input.url, targets: { environment: 'sandbox', allowLoopback: true } }),
  };
  beforeAll(async () => {
    [smtp, stripe, receiver, browser] = await Promise.all([
      startSmtpCatcher(),
      startRecordingProxy(inject('stripeApiBase')),
      startWebhookReceiver(),
      launchChromium(),
    ]);
    env.SMTP_URL = smtp.url;
    options.paymentProcessor = createStripePaymentProcessor({ secretKey: PRODUCTION_SETTINGS.STRIPE_SECRET_KEY, apiBase: stripe.url });
  });
  afterAll(async () => {
    await Promise.all([smtp?.close(), stripe?.close(), receiver?.close(), browser?.close()]);
  });
  const stack = useTestStack(env, options);

  it('reads the code from the email, pays through Stripe and notifies the merchant with a webhook it verifies', async () => {
    expect(stack.config.environment).toBe('production');
    const merchant = await stack.createMerchant({ name: 'Live Store', webhookUrl: MERCHANT_WEBHOOK_URL, domains: ['store.example'] });
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));

    const { page } = await openPage(browser);
    await page.route('https://store.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Store</h1>' }));
    expect((await page.goto(`${stack.checkoutUrl}/?token=${cartId}`))?.status()).toBe(200);
    // Production shows no sandbox values.
    expect(await page.content()).not.toContain('123456');

    await page.getByLabel('Phone or email').fill('buyer@example.com');
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    const email = await waitFor(() => smtp.messages.find((m: ParsedMail) => m.to && JSON.stringify(m.to).includes('buyer@example.com')), {
      what: 'the code email',
    });
    const code = /\b(\d{6})\b/.exec(email.text ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    await untilStepReady(page, { name: 'code' });
    await page.getByLabel('One-time code').fill(code!);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();

    await untilStepReady(page, { id: 'number' });
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM/YY)').fill('12/30');
    await page.getByLabel('CVV').fill('123');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL((url) => url.origin === 'https://store.example' && url.pathname === '/success', { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('cartId')).toBe(cartId);

    // The charge went to Stripe under the cart's key, the card only in the PaymentMethod request.
    const charge = stripe.requests.filter((r) => r.method === 'POST');
    expect(charge.map((r) => [r.path, r.idempotencyKey, r.status])).toEqual([
      ['/v1/payment_methods', `${cartId}:payment-method`, 200],
      ['/v1/payment_intents', cartId, 200],
    ]);
    expect(charge[1]!.body).not.toContain('4242424242424242');

    const delivered = await waitFor(
      () =>
        receiver.requests.find((r) => {
          const body = JSON.parse(r.rawBody) as { event: string; data: { cartId: string } };
          return body.event === 'order_created' && body.data.cartId === cartId;
        }),
      { what: 'the order_created webhook' },
    );
    const verified = verifyWebhook(delivered.rawBody, delivered.headers, merchant.webhookSecret);
    expect(verified).toMatchObject({ valid: true, event: { event: 'order_created', environment: 'production', data: { cartId, status: 'paid' } } });
    const ledger = await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`;
    expect(ledger[0]?.status).toBe('paid');
  });
});
