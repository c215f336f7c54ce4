/// <reference lib="dom" />
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { launchChromium, openPage, skipWithoutChromium } from '../support/chromium.js';

/** Sessions here last 4 seconds (test-only override); the 45-minute value is asserted elsewhere. */
const LIFETIME_SECONDS = 4;

describe.skipIf(skipWithoutChromium())('an expired checkout in headless Chromium', () => {
  const stack = useTestStack({ SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS) });
  let browser: Browser;
  let platformUuid: string;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant({ name: 'Expiry Store' })).platformUuid;
  });

  async function createCart(): Promise<string> {
    return createCartId(stack.apiUrl, validCartRequest(platformUuid));
  }

  it('counts down and turns into the 410 expired page by itself when the time is up', async () => {
    const cartId = await createCart();
    const { page } = await openPage(browser);
    await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    await expect.poll(() => page.locator('.countdown-clock').textContent()).toMatch(/^0:0[0-4]$/);
    await page.getByRole('heading', { name: 'This checkout has expired' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('link', { name: 'Return to Test Store' }).getAttribute('href')).toBe('https://store.example');
  });

  it('answers 410 for the link of an abandoned session', async () => {
    const cartId = await createCart();
    await waitFor(
      async () => {
        const [row] = await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`;
        return row?.status === 'abandoned' ? true : undefined;
      },
      { what: 'the session to be abandoned', timeoutMs: 20_000 },
    );
    const { page } = await openPage(browser);
    const response = await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(response?.status()).toBe(410);
    expect(await page.getByRole('heading').textContent()).toBe('This checkout has expired');
  });

  it('sends a form posted after expiry to the expired page, without JavaScript too', async () => {
    const cartId = await createCart();
    const { page } = await openPage(browser, { javaScriptEnabled: false });
    await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    await page.getByLabel('Phone or email').fill('customer@example.com');
    await page.waitForTimeout(LIFETIME_SECONDS * 1000 + 500);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes(`/?token=${cartId}`)),
      page.getByRole('button', { name: 'Send code', exact: true }).click(),
    ]);
    expect(response.status()).toBe(410);
    expect(await page.getByRole('heading').textContent()).toBe('This checkout has expired');
  });
});
