import { setTimeout as delay } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../test/support/chromium.js';
import { createCart, settle, type BenchContext } from './context.js';
import { quantile, round } from './load.js';
import type { VerifyingReceiver } from './receiver.js';

export interface LandingFigures {
  checkouts: number;
  errors: number;
  /** From the Pay click to the store's success page loaded in the browser. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the Pay click to the Pay post's answer (the redirect, or the processing step). */
  payAnswerP50Ms: number;
  /** From the Pay click to the first `order_created` verified at the merchant's endpoint, which the redirect gives a head start. */
  webhookP50Ms: number;
  webhookP99Ms: number;
  /** Checkouts whose customer reached the success page before the merchant had the order (its endpoint was up). */
  landedBeforeWebhook: number;
  /** Checkouts whose page showed the processing step and polled `/status`: the payment outlasted PAY_OUTCOME_WAIT_MS. */
  processingShown: number;
}

/**
 * Pay click → the merchant's success page, in Chromium as a customer: each checkout created through
 * the API, opened in a fresh browser context, its code sent and verified and the sandbox card typed;
 * only the Pay click is timed, until the success page has loaded. One at a time, so the figure is the
 * path's own latency, including the first `order_created` attempt the redirect waits for. One checkout
 * first warms the browser and the roles up, untimed.
 */
export async function measurePayToLanding(ctx: BenchContext, receiver: VerifyingReceiver, checkouts: number): Promise<LandingFigures> {
  const browser = await launchChromium();
  try {
    await checkout(ctx, receiver, browser, 'warm-up');
    await settle(ctx);
    const toLanding: number[] = [];
    const toAnswer: number[] = [];
    const toWebhook: number[] = [];
    let landedBeforeWebhook = 0;
    let errors = 0;
    let processingShown = 0;
    for (let i = 0; i < checkouts; i++) {
      try {
        const timed = await checkout(ctx, receiver, browser, String(i));
        toLanding.push(timed.landedMs);
        toAnswer.push(timed.answeredMs);
        toWebhook.push(timed.webhookMs);
        if (timed.webhookMs > timed.landedMs) landedBeforeWebhook++;
        if (timed.polled) processingShown++;
      } catch (err) {
        errors++;
        ctx.log(`  checkout ${i} failed: ${(err as Error).message}`);
      }
    }
    toLanding.sort((a, b) => a - b);
    toAnswer.sort((a, b) => a - b);
    toWebhook.sort((a, b) => a - b);
    return {
      checkouts,
      errors,
      p50Ms: round(quantile(toLanding, 0.5)),
      p99Ms: round(quantile(toLanding, 0.99)),
      maxMs: round(toLanding.at(-1) ?? NaN),
      payAnswerP50Ms: round(quantile(toAnswer, 0.5)),
      webhookP50Ms: round(quantile(toWebhook, 0.5)),
      webhookP99Ms: round(quantile(toWebhook, 0.99)),
      landedBeforeWebhook,
      processingShown,
    };
  } finally {
    await browser.close();
  }
}

/** The merchant's endpoint answers at once: an order_created not verified by then is a failed checkout. */
const WEBHOOK_TIMEOUT_MS = 30_000;

async function checkout(ctx: BenchContext, receiver: VerifyingReceiver, browser: Browser, name: string) {
  const successUrl = `${receiver.storeUrl}/success`;
  const { cartId } = await createCart(ctx.roles.apiUrl, ctx.merchant.platformUuid, { successUrl, failureUrl: `${receiver.storeUrl}/failure` });
  const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
  try {
    const page = await context.newPage();
    let polled = false;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/status') polled = true;
    });
    const opened = await page.goto(`${ctx.roles.webUrl}/?token=${cartId}`);
    if (opened?.status() !== 200) throw new Error(`the checkout page answered ${opened?.status()}`);
    await readyToPay(page, ctx.config.sandboxOtp, `bench-landing-${name}@example.com`);

    const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/card');
    const landed = page.waitForURL((url) => url.href.startsWith(`${successUrl}?`), { waitUntil: 'load', timeout: 60_000 });
    const created = receiver.waitFor('order_created', cartId);
    // A checkout that fails before these are awaited must not leave their rejections unhandled.
    void answered.catch(() => undefined);
    void landed.catch(() => undefined);
    const clicked = performance.now();
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await answered;
    const answeredMs = performance.now() - clicked;
    await landed;
    const landedMs = performance.now() - clicked;
    if (new URL(page.url()).searchParams.get('cartId') !== cartId) throw new Error(`landed on ${page.url()}, not the success page of ${cartId}`);
    const delivery = await Promise.race([created, delay(WEBHOOK_TIMEOUT_MS, undefined, { ref: false })]);
    if (!delivery) throw new Error(`no order_created for ${cartId} within ${WEBHOOK_TIMEOUT_MS} ms`);
    const webhookMs = delivery.at - clicked;
    return { landedMs, answeredMs, webhookMs, polled };
  } finally {
    await context.close();
  }
}

/** Contact, code and card, as the customer types them; leaves the page on the card step with Pay to press. */
async function readyToPay(page: Page, code: string, contact: string) {
  await page.getByLabel('Phone or email').fill(contact);
  await page.getByRole('button', { name: 'Send code', exact: true }).click();
  await page.getByLabel('One-time code').fill(code);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await page.getByLabel('Card number').fill('4111 1111 1111 1111');
  await page.getByLabel('Expiry (MM/YY)').fill('12/30');
  await page.getByLabel('CVV').fill('123');
}
