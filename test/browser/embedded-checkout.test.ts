/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { recordDomainCheck, selectMerchantDomainTokens } from '../../core/merchants/merchant-store.js';
import type { WebhookEventBody } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { axeViolations, describeViolations } from '../support/axe.js';
import { launchChromium, openPage, skipWithoutChromium, untilStepReady, type WatchedPage } from '../support/chromium.js';
import { startEmbeddingStore, type EmbeddingStore } from '../support/embedding-store.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The embedded checkout across sites (docs/checkout-page.md, "Embedded checkout"): the store's page on
 * 127.0.0.1 mounts the checkout from http://localhost with /embed.js. Chromium maps two names to
 * loopback: proven.example, a domain the merchant proved, and unproven.example, one it only registered.
 */
describe.skipIf(skipWithoutChromium())('embedded checkout', () => {
  // The bank's return link is built from CHECKOUT_BASE_URL: it must lead to this page, on another site than the store's.
  const stack = useTestStack({ THREE_DS_CHALLENGE_SECONDS: '30' }, { checkoutAtItsBaseUrl: true, checkoutHostname: 'localhost' });
  let browser: Browser;
  let store: EmbeddingStore;
  let receiver: WebhookReceiver;
  let merchant: CreatedMerchant;
  const opened: WatchedPage[] = [];
  const contact = `framed-${randomUUID().slice(0, 8)}@example.com`;

  beforeAll(async () => {
    browser = await launchChromium(['--host-resolver-rules=MAP proven.example 127.0.0.1, MAP unproven.example 127.0.0.1']);
    // At CHECKOUT_BASE_URL (http://localhost:…), where the bank's return also leads: never on the store's site.
    store = await startEmbeddingStore(stack.config.checkoutBaseUrl);
    receiver = await startWebhookReceiver();
    merchant = await stack.createMerchant({ name: 'Framing Store', webhookUrl: receiver.url, domains: ['proven.example', 'unproven.example'] });
    const proven = (await selectMerchantDomainTokens(stack.db, merchant.platformUuid)).find((d) => d.domain === 'proven.example')!;
    await recordDomainCheck(stack.db, proven, { verifiedBy: 'well-known' });
  });
  afterAll(async () => {
    await browser?.close();
    await store?.close();
    await receiver?.close();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((watched) => watched.context.close()));
  });

  const createCart = () => {
    const body = validCartRequest(merchant.platformUuid);
    body.cartObject.cart.merchantUrls = store.returnUrls();
    return createCartId(stack.apiUrl, body);
  };

  /** Every message the store's page heard from the frame, across its navigations. */
  const heard = new WeakMap<Page, Array<{ type: string }>>();
  async function storePage(host: string, cartId: string, options: { forger?: string; watched?: WatchedPage } = {}) {
    const watched = options.watched ?? (await openPage(browser, { width: 375 }));
    if (!options.watched) {
      opened.push(watched);
      const messages: Array<{ type: string }> = [];
      heard.set(watched.page, messages);
      await watched.page.exposeFunction('recordEmbedEvent', (detail: { type: string }) => messages.push(detail));
    }
    await watched.page.goto(store.pageUrl(host, cartId, options));
    return watched;
  }

  const events = (page: Page) => page.evaluate(() => (window as unknown as { embedEvents: { type: string }[] }).embedEvents);
  const eventTypes = async (page: Page) => (await events(page)).map((e) => e.type);
  async function checkoutFrame(page: Page): Promise<Frame> {
    const frame = await (await page.locator('#checkout iframe').elementHandle())?.contentFrame();
    if (!frame) throw new Error('no checkout frame on the store page');
    return frame;
  }

  const verifiedEvents = (cartId: string, name: string): WebhookEventBody[] =>
    receiver.requests
      .map((r) => verifyWebhook(r.rawBody, r.headers, merchant.webhookSecret))
      .flatMap((v) => (v.valid && v.event.data.cartId === cartId && v.event.event === name ? [v.event] : []));

  async function toCardStep(page: Page) {
    const frame = page.frameLocator('#checkout iframe');
    const inside = await checkoutFrame(page);
    await frame.getByLabel('Phone or email').fill(contact);
    await frame.getByRole('button', { name: 'Send code', exact: true }).click();
    await untilStepReady(inside, { name: 'code' });
    await frame.getByLabel('One-time code').fill('123456');
    await frame.getByRole('button', { name: 'Verify', exact: true }).click();
    await frame.locator('[data-step="card"]').waitFor();
    await untilStepReady(inside);
    return frame;
  }

  async function landsOnSuccess(page: Page, cartId: string) {
    try {
      await page.waitForURL((url) => url.pathname === '/success' && url.searchParams.get('cartId') === cartId, { timeout: 30_000 });
    } catch (error) {
      const frame = page.frames().at(-1);
      const shown = await frame?.evaluate(() => document.body.innerText.slice(0, 300)).catch(() => '(unreadable)');
      throw new Error(`not at successUrl: the frame is at ${frame?.url()} showing ${shown}, the store heard ${JSON.stringify(heard.get(page))}`, {
        cause: error,
      });
    }
  }

  it('pays in the frame with a typed card and a 3-D Secure challenge, then with the saved card; the store hears ready, resize, completed and goes to successUrl', async () => {
    const first = await createCart();
    const watched = await storePage('127.0.0.1', first);
    const { page } = watched;
    await expect.poll(() => eventTypes(page), { timeout: 15_000 }).toEqual(expect.arrayContaining(['ready', 'resize', 'step']));
    const frame = await checkoutFrame(page);
    expect(await page.locator('#checkout iframe').getAttribute('title')).toBe('Secure checkout');
    // Resized to its content: the frame is as tall as the page it shows.
    const contentHeight = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    await expect.poll(async () => (await page.locator('#checkout iframe').boundingBox())!.height).toBe(contentHeight);

    const inFrame = await toCardStep(page);
    await inFrame.getByLabel('Card number').fill('4000 0027 6000 3184');
    await inFrame.getByLabel('Expiry (MM/YY)').fill('12/30');
    await inFrame.getByLabel('CVV').fill('123');
    await inFrame.getByLabel('Save this card for faster checkout').check();
    await inFrame.getByRole('button', { name: 'Pay', exact: true }).click();
    // The bank's challenge shows in the frame, and its return lands there too.
    await inFrame.getByRole('button', { name: 'Complete authentication' }).click({ timeout: 20_000 });
    await landsOnSuccess(page, first);
    expect(heard.get(page)).toContainEqual({ protocol: 'hosted-checkout', version: 1, type: 'completed', cartId: first, status: 'paid' });
    expect(heard.get(page)!.map((m) => m.type)).toEqual(expect.arrayContaining(['ready', 'resize', 'step', 'completed']));
    await expect.poll(() => verifiedEvents(first, 'order_created'), { timeout: 15_000 }).toHaveLength(1);
    expect(verifiedEvents(first, 'order_created')[0]!.data).toMatchObject({
      status: 'paid',
      payment: { last4: '3184', threeDSecure: { result: 'authenticated' } },
    });

    // A second purchase, in the same browser: the code again, then the saved card in one step.
    const second = await createCart();
    await storePage('127.0.0.1', second, { watched });
    const again = await toCardStep(page);
    expect(await again.getByRole('radio', { name: /•••• 3184/ }).isChecked()).toBe(true);
    await again.getByRole('button', { name: 'Pay', exact: true }).first().click();
    // The bank still challenges a saved card (docs/decisions/security.md): in the frame again.
    await again.getByRole('button', { name: 'Complete authentication' }).click({ timeout: 20_000 });
    await expect
      .poll(() => heard.get(page), { timeout: 30_000 })
      .toContainEqual({ protocol: 'hosted-checkout', version: 1, type: 'completed', cartId: second, status: 'paid' });
    await landsOnSuccess(page, second);
    await expect.poll(() => verifiedEvents(second, 'order_created'), { timeout: 15_000 }).toHaveLength(1);
    expect(verifiedEvents(second, 'order_created')[0]!.data).toMatchObject({ status: 'paid', payment: { last4: '3184', savedCard: true } });
  });

  it('frames on a proven domain; on a registered but unproven one the frame is blocked', async () => {
    const proven = await storePage('proven.example', await createCart());
    await expect.poll(() => eventTypes(proven.page), { timeout: 15_000 }).toContain('ready');

    const unproven = await storePage('unproven.example', await createCart());
    await expect.poll(() => unproven.consoleErrors.some((e) => e.includes('frame-ancestors')), { timeout: 15_000 }).toBe(true);
    expect(await eventTypes(unproven.page)).toEqual([]);
  });

  it('ignores completed, resize and navigate from another origin', async () => {
    const { page } = await storePage('127.0.0.1', await createCart(), { forger: `http://shop.localhost:${store.port}` });
    await expect.poll(() => eventTypes(page), { timeout: 15_000 }).toContain('ready');
    const height = (await page.locator('#checkout iframe').boundingBox())!.height;
    // The store's own window posts too: not the frame, not the checkout's origin.
    await page.evaluate(() => window.postMessage({ protocol: 'hosted-checkout', version: 1, type: 'completed', cartId: 'x', status: 'paid' }, '*'));
    await page.waitForTimeout(1_500);
    expect(await eventTypes(page)).not.toContain('completed');
    expect((await page.locator('#checkout iframe').boundingBox())!.height).toBe(height);
    expect(new URL(page.url()).pathname).toBe('/store');
  });

  it('is accessible inside the frame at 375 px, and Tab goes from the store into the frame and out after its last control', async () => {
    const { page } = await storePage('127.0.0.1', await createCart());
    await expect.poll(() => eventTypes(page), { timeout: 15_000 }).toContain('ready');
    const frame = await checkoutFrame(page);
    const violations = await axeViolations(frame);
    expect(violations, describeViolations(violations)).toEqual([]);

    const focused = async (): Promise<string> => {
      const top = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || '');
      if (top !== 'IFRAME') return `store: ${top}`;
      return `frame: ${await frame.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const label = el.getAttribute('aria-label') ?? (el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null) ?? el.textContent;
        return `${el.tagName.toLowerCase()} ${(label ?? '').replace(/\s+/g, ' ').trim()}`;
      })}`;
    };
    // Keyboard focus needs the page in front and the frame's form in place.
    await page.bringToFront();
    await frame.getByLabel('Phone or email').waitFor();
    await page.locator('#back').focus();
    // The frame is another site's process: Tab into it hands focus over asynchronously, and the store
    // reads BODY until the frame has taken it (one loaded CI run read BODY there once).
    const settledFocus = async (): Promise<string> => {
      let seen = await focused();
      for (let tries = 0; seen === 'store: BODY' && tries < 40; tries += 1) {
        await page.waitForTimeout(50);
        seen = await focused();
      }
      return seen;
    };
    const order = [await settledFocus()];
    while (order.length < 30 && order.at(-1) !== 'store: help') {
      await page.keyboard.press('Tab');
      order.push(await settledFocus());
    }
    expect(order).toEqual([
      'store: back',
      'frame: summary 2 items',
      'frame: input Phone or email',
      'frame: button Send code',
      'frame: button Cancel',
      'frame: a العربية',
      'frame: a Deutsch',
      'frame: a English',
      'frame: a Español',
      'frame: a Français',
      'store: help',
    ]);
  });
});
