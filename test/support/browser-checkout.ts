import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { CreateCartRequest } from '../../core/checkout/cart-schema.js';
import type { NewMerchant } from '../../core/onboarding/registration.js';
import { launchChromium, openPage, type WatchedPage } from './chromium.js';
import { createCartId, validCartRequest } from './fixtures.js';
import { startMerchantSite, type MerchantSite } from './merchant-site.js';
import { useTestStack, type TestStackOptions } from './test-stack.js';

/**
 * A browser suite's stack: Chromium, a merchant site to land on (its success and failure pages,
 * its webhook receiver), one merchant registered for it, and phone-sized pages closed after each test;
 * `env` and `options` configure the stack (short bounds, the page at its base URL).
 */
export function useBrowserCheckout(
  merchantSettings: Partial<NewMerchant> & { name: string },
  env: Record<string, string> = {},
  options: TestStackOptions = {},
) {
  const stack = useTestStack(env, options);
  let browser: Browser;
  let merchant: MerchantSite;
  let platformUuid: string;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    merchant = await startMerchantSite();
    platformUuid = (await stack.createMerchant({ ...merchantSettings, webhookUrl: merchant.webhookUrl })).platformUuid;
  });
  afterAll(async () => {
    await browser?.close();
    await merchant?.close();
  });
  // A page left polling (the processing step asks every second) must not load the next test.
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((watched) => watched.context.close()));
  });

  /** A page at 375 px, closed after the test, that has gone nowhere yet. */
  async function blank(options: { javaScriptEnabled?: boolean; locale?: string } = {}): Promise<WatchedPage> {
    const watched = await openPage(browser, { width: 375, ...options });
    opened.push(watched);
    return watched;
  }

  return {
    stack,
    browser: () => browser,
    merchant: () => merchant,
    platformUuid: () => platformUuid,
    /** A valid cart whose return URLs are the merchant site's /success and /failure. */
    async createCart(edit: (body: CreateCartRequest) => void = () => {}): Promise<string> {
      const body = validCartRequest(platformUuid);
      body.cartObject.cart.merchantUrls = { successUrl: `${merchant.baseUrl}/success`, failureUrl: `${merchant.baseUrl}/failure` };
      edit(body);
      return createCartId(stack.apiUrl, body);
    },
    blank,
    /** Opens a checkout path (e.g. `/?token=…`) at 375 px and expects a 200. */
    async open(path: string, options: { javaScriptEnabled?: boolean; locale?: string } = {}): Promise<WatchedPage> {
      const watched = await blank(options);
      expect((await watched.page.goto(`${stack.checkoutUrl}${path}`))?.status()).toBe(200);
      return watched;
    },
    /** Waits until the browser lands on the merchant site's /success or /failure. */
    async landsOn(watched: WatchedPage, path: '/success' | '/failure') {
      await watched.page.waitForURL((url) => url.origin === merchant.baseUrl && url.pathname === path, { timeout: 20_000 });
    },
  };
}
