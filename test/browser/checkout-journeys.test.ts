/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { sessionTrace } from '../support/session-trace.js';
import { waitFor } from '../support/wait-for.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, untilStepReady, type WatchedPage } from '../support/chromium.js';
import { payWith, verifyContactAndCode } from '../support/checkout-typing.js';
import { startMerchantSite, type MerchantSite } from '../support/merchant-site.js';
import { startTestAcquirer, testAcquirerProcessor, type TestAcquirer } from '../support/http-processor.js';

describe.skipIf(skipWithoutChromium())('the hosted checkout in headless Chromium', () => {
  /** A cart whose charge the acquirer holds until the test lets it answer: a payment past the Pay post's wait. */
  let slowCharge: { cartId: string; answer: () => void; answered: Promise<void> } | undefined;
  let acquirer: TestAcquirer;
  // The Pay post waits 2 s for the outcome: ample for a charge the acquirer answers at once, short for the slow one.
  const stack = useTestStack({ PAY_OUTCOME_WAIT_MS: '2000' }, { paymentProcessor: testAcquirerProcessor(() => acquirer.url) });
  let browser: Browser;
  let merchant: MerchantSite;
  let platformUuid: string;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    acquirer = await startTestAcquirer({
      beforeAnswer: async (cartId) => {
        if (cartId === slowCharge?.cartId) await slowCharge.answered;
        return 'answer';
      },
    });
  });
  afterAll(async () => {
    await acquirer?.close();
  });

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeAll(async () => {
    // A merchant doing a little work before it answers; the rest of the redirect's 3 s head start
    // (web/checkout/leave.ts) is the delivery's own start, over 1.5 s with two test runs side by side.
    merchant = await startMerchantSite({ webhookAckDelayMs: 500 });
    platformUuid = (await stack.createMerchant({ name: 'Browser Store', webhookUrl: merchant.webhookUrl })).platformUuid;
  });
  afterAll(async () => {
    await merchant?.close();
  });

  async function createCart(edit: (body: CreateCartRequest) => void = () => {}): Promise<string> {
    const body = validCartRequest(platformUuid);
    // The merchant's own query parameters must survive the redirect back.
    body.cartObject.cart.merchantUrls = { successUrl: `${merchant.baseUrl}/success?ref=abc`, failureUrl: `${merchant.baseUrl}/failure?ref=abc` };
    edit(body);
    return createCartId(stack.apiUrl, body);
  }

  async function open(cartId: string, options: { width?: number; javaScriptEnabled?: boolean } = {}): Promise<WatchedPage> {
    const watched = await openPage(browser, options);
    opened.push(watched);
    const response = await watched.page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(response?.status()).toBe(200);
    return watched;
  }

  const ledgerStatus = async (cartId: string) =>
    (await stack.db<{ status: string; failure_code: string | null }[]>`select status, failure_code from carts where cart_id = ${cartId}`)[0];

  async function landing(page: Page, path: '/success' | '/failure', cartId: string): Promise<URL> {
    try {
      await page.waitForURL((url) => url.origin === merchant.baseUrl && url.pathname === path, { timeout: 20_000 });
    } catch (err) {
      // Rare in the whole suite: say where the page and the session stood, so the cause can be read.
      const exchanges = opened.find((watched) => watched.page === page)?.exchanges ?? [];
      throw new Error(
        `${(err as Error).message}\npage at ${page.url()}\n\nthe page's requests:\n${exchanges.join('\n')}\n\nthe session's history:\n${await sessionTrace(stack.temporal.client, cartId)}`,
        { cause: err },
      );
    }
    const url = new URL(page.url());
    expect(url.searchParams.get('cartId')).toBe(cartId);
    expect(url.searchParams.get('ref')).toBe('abc');
    return url;
  }

  /** The page's requests for the processing step's poll (`GET /status`). */
  function statusPolls(page: Page): string[] {
    const polls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/status') polls.push(request.url());
    });
    return polls;
  }

  it('pays with the sandbox values and lands on successUrl with the cartId, straight from the Pay post', async () => {
    const cartId = await createCart();
    const { page, consoleErrors, dialogs } = await open(cartId);
    const polls = statusPolls(page);
    await expect.poll(() => page.getByTestId('total').textContent()).toBe('€44.98');
    await expect.poll(() => page.locator('.countdown-clock').textContent()).toMatch(/^4[45]:\d\d$/);
    await verifyContactAndCode(page);
    const payAnswer = page.waitForResponse((res) => new URL(res.url()).pathname === '/card');
    await payWith(page, '4111 1111 1111 1111');
    // The Pay post itself answers with the outcome: no processing panel, no poll.
    expect((await payAnswer).headers()['hx-redirect']).toBe(`${merchant.baseUrl}/success?ref=abc&cartId=${cartId}`);
    await landing(page, '/success', cartId);
    expect(polls).toEqual([]);
    expect(await ledgerStatus(cartId)).toEqual({ status: 'paid', failure_code: null });
    // The redirect gave the first order_created delivery its head start, though the merchant took 0.5 s to
    // answer, and sent the customer exactly once.
    const timeline = merchant.timeline.filter((entry) => entry === 'webhook order_created' || entry === 'landing /success');
    expect(timeline).toEqual(['webhook order_created', 'landing /success']);
    expect(consoleErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  });

  it('sends a declined card to failureUrl and fails the session', async () => {
    const cartId = await createCart();
    const { page } = await open(cartId);
    await verifyContactAndCode(page);
    await payWith(page, '4000 0000 0000 0002');
    await landing(page, '/failure', cartId);
    expect((await ledgerStatus(cartId))?.status).toBe('failed');
  });

  it('cancels to failureUrl, and the link then answers 410 with a way back to the store', async () => {
    const cartId = await createCart();
    const { page } = await open(cartId);
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await landing(page, '/failure', cartId);
    await waitFor(async () => ((await ledgerStatus(cartId))?.status === 'cancelled' ? true : undefined), { what: 'status cancelled' });

    const again = await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(again?.status()).toBe(410);
    await expect.poll(() => page.getByRole('heading').textContent()).toBe('This checkout has already been used');
    expect(await page.getByRole('link', { name: 'Return to Test Store' }).getAttribute('href')).toBe('https://store.example');
  });

  it('fails the session after 5 wrong codes and sends the customer to failureUrl', async () => {
    const cartId = await createCart();
    const { page } = await open(cartId);
    await page.getByLabel('Phone or email').fill('+33 6 12 34 56 78');
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await expect.poll(() => page.locator('.lead').textContent()).toContain('•••• 5678');
    // Neither the sandbox code nor, with odds of 5 in a million, the code actually sent.
    const wrongCodes = ['000001', '000002', '000003', '000004', '000005'];
    for (const [i, code] of wrongCodes.entries()) {
      await untilStepReady(page, { name: 'code' });
      await page.getByLabel('One-time code').fill(code);
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      if (i < wrongCodes.length - 1) {
        const left = wrongCodes.length - 1 - i;
        await expect.poll(() => page.locator('#code-error').textContent()).toBe(`That code is not right. ${left} ${left === 1 ? 'attempt' : 'attempts'} left.`);
      }
    }
    await landing(page, '/failure', cartId);
    expect(await ledgerStatus(cartId)).toEqual({ status: 'failed', failure_code: 'otp_locked' });
  });

  it('shows card mistakes at their fields without echoing the card number', async () => {
    const cartId = await createCart();
    const { page } = await open(cartId);
    await verifyContactAndCode(page);
    await untilStepReady(page, { id: 'number' });
    await page.getByLabel('Card number').fill('4111 1111 1111 1112');
    await page.getByLabel('Expiry (MM/YY)').fill('01/20');
    await page.getByLabel('CVV').fill('12');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await expect.poll(() => page.locator('#number-error').textContent()).toContain('not valid');
    // The cursor goes back to the first field to fix.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('number');
    expect(await page.locator('#expiry-error').textContent()).toContain('expired');
    expect(await page.locator('#cvv-error').textContent()).toContain('3-digit');
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    expect(await page.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    expect(await page.content()).not.toContain('1112');
  });

  it('shows a <script> in merchant text as text and never runs it', async () => {
    const payload = `<script>window.__pwned = true; alert('xss')</script><img src=x onerror="window.__pwned = true">`;
    const cartId = await createCart((body) => {
      body.cartObject.store.name = `Evil ${payload}`.slice(0, 255);
      body.cartObject.cart.items[0]!.title = payload;
      body.cartObject.cart.items[0]!.variantOptions = [`Size : ${payload}`.slice(0, 255)];
    });
    const { page, dialogs, consoleErrors } = await open(cartId);
    await expect.poll(() => page.locator('.item-title').first().textContent()).toBe(payload);
    expect(await page.locator('.merchant-name').textContent()).toContain('<script>');
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(consoleErrors).toEqual([]);
    // The page's own scripts did run: htmx is there and the countdown ticks.
    expect(await page.evaluate(() => typeof (window as unknown as { htmx?: unknown }).htmx)).toBe('object');
  });

  it('never scrolls sideways at 375 px, at any step, even with long unbroken merchant text', async () => {
    const cartId = await createCart((body) => {
      body.cartObject.store.name = 'S'.repeat(120);
      body.cartObject.cart.items[0]!.title = 'Extraordinarily'.repeat(15);
      body.cartObject.cart.items[0]!.quantity = 999_999;
      body.cartObject.cart.items[0]!.price = 99_999_999;
    });
    const { page } = await open(cartId, { width: 375 });
    expect(await horizontalOverflow(page)).toBe(0);
    await page.getByLabel('Phone or email').fill('customer@example.com');
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await page.getByLabel('One-time code').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await page.getByLabel('One-time code').fill('123456');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByLabel('Card number').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    // Tap targets: every button at least 44 px high.
    for (const box of await page.locator('button').evaluateAll((buttons) => buttons.map((b) => b.getBoundingClientRect().height))) {
      expect(box).toBeGreaterThanOrEqual(44);
    }
  });

  it('folds a long order on a phone, so the payment form stays in view; shows every line on a wide screen', async () => {
    const cartId = await createCart((body) => {
      const [first] = body.cartObject.cart.items;
      body.cartObject.cart.items = Array.from({ length: 5 }, (_, i) => ({ ...first!, title: `Line ${i + 1}` }));
    });
    const phone = (await open(cartId, { width: 375 })).page;
    await expect.poll(() => phone.getByText('Line 1', { exact: true }).isVisible()).toBe(false);
    expect(await phone.getByTestId('total').isVisible()).toBe(true);
    expect(await phone.getByLabel('Phone or email').isVisible()).toBe(true);
    await phone.getByText('5 items', { exact: true }).click();
    await expect.poll(() => phone.getByText('Line 5', { exact: true }).isVisible()).toBe(true);

    const desktop = (await open(cartId, { width: 1200 })).page;
    expect(await desktop.getByText('Line 5', { exact: true }).isVisible()).toBe(true);
    expect(await desktop.getByText('5 items', { exact: true }).isVisible()).toBe(false);
  });

  it('works without JavaScript: plain form posts, and the Pay post redirects (303) to successUrl', async () => {
    const cartId = await createCart();
    const { page } = await open(cartId, { javaScriptEnabled: false });
    const polls = statusPolls(page);
    await verifyContactAndCode(page);
    await payWith(page, '4111 1111 1111 1111');
    await landing(page, '/success', cartId);
    expect(polls).toEqual([]);
    expect((await ledgerStatus(cartId))?.status).toBe('paid');
  });

  it('shows "processing" for a charge that outlasts the Pay post’s wait, and lands on successUrl once it answers', async () => {
    const cartId = await createCart();
    let answer!: () => void;
    slowCharge = { cartId, answer: () => answer(), answered: new Promise<void>((resolve) => (answer = resolve)) };
    const { page, consoleErrors } = await open(cartId);
    const polls = statusPolls(page);
    await verifyContactAndCode(page);
    await payWith(page, '4111 1111 1111 1111');
    await page.locator('#step[data-step="processing"]').waitFor();
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('Confirming your payment…');
    await expect.poll(() => polls.length).toBeGreaterThan(0);
    slowCharge.answer();
    await landing(page, '/success', cartId);
    expect(await ledgerStatus(cartId)).toEqual({ status: 'paid', failure_code: null });
    expect(acquirer.records.get(cartId)).toMatchObject({ requests: 1, approvedCharges: 1 });
    expect(consoleErrors).toEqual([]);
  });

  it('cancels without JavaScript: the 303 to the merchant is allowed by the page CSP', async () => {
    const cartId = await createCart();
    const { page } = await open(cartId, { javaScriptEnabled: false });
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await landing(page, '/failure', cartId);
  });
});
