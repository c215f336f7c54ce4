/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { launchChromium, openPage, skipWithoutChromium } from '../support/chromium.js';
import { startDemoStoreOnStack } from '../support/demo-store.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * Where Chromium itself lands after the owner signs in with a hostile `next`: what the store answers
 * is only half of it, the other half is how the browser reads that Location (dot segments, `%2e`, `\`).
 */
describe.skipIf(skipWithoutChromium())('the demo store’s sign-in in headless Chromium: next never leaves the store', () => {
  const stack = useTestStack();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'demo-store-sign-in-'));
  let browser: Browser;
  let store: { url: string; close: () => Promise<void>; ownerPassword: string };
  let storeUrl: string;

  beforeAll(async () => {
    browser = await launchChromium();
    const port = await freePort();
    storeUrl = `http://store.localhost:${port}`;
    const merchant = await stack.createMerchant({ name: 'Demo Store', webhookUrl: `http://127.0.0.1:${port}/webhooks` });
    store = await startDemoStoreOnStack(stack, merchant, { port, baseUrl: storeUrl, ordersFile: path.join(dataDir, 'orders.json'), log: () => {} });
  });
  afterAll(async () => {
    await store?.close();
    await browser?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Each, answered as its resolved path, would be `//evil.example` (or `/\evil.example`): another host to the browser.
  const offSite = ['/.//evil.example', '/%2e//evil.example', '/orders/..//evil.example', '//evil.example', '/\\evil.example'];

  /** Signs in from the store's form, its `next` field holding `posted` (by default what the page itself put there). */
  async function signIn(page: Page, next: string, posted?: string): Promise<void> {
    await page.goto(`${storeUrl}/login?next=${encodeURIComponent(next)}`);
    // The hidden field as another page of the store could fill it: the POST handler sees the hostile value itself.
    if (posted !== undefined) await page.locator('input[name="next"]').evaluate((input, value) => ((input as HTMLInputElement).value = value), posted);
    await page.getByLabel('Password').fill(store.ownerPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  it.each(offSite)('signed in with next=%s, from the link or posted as is, lands on the orders page of the store', async (next) => {
    const { context, page, consoleErrors } = await openPage(browser, { width: 1024 });
    try {
      const offSiteRequests: string[] = [];
      // Were the browser sent there, it would land here (and the test would say so), not on a DNS error.
      await page.route(/^https?:\/\/evil\.example\//, (route) => {
        offSiteRequests.push(route.request().url());
        return route.fulfill({ contentType: 'text/html', body: '<h1>evil</h1>' });
      });
      for (const posted of [undefined, next]) {
        await context.clearCookies();
        await signIn(page, next, posted);
        // Off-site, the redirect would land on evil.example, or be stopped by the store's CSP form-action (the page stays on /login).
        await expect
          .poll(() => page.url(), {
            timeout: 10_000,
            message: `${next} (${posted === undefined ? 'from the link' : 'posted as is'}): ${consoleErrors.join(' | ')}`,
          })
          .toBe(`${storeUrl}/orders`);
      }
      expect(offSiteRequests).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('signed in with next=/%5Cevil.example posted as is, stays on the store: an encoded backslash is a path, not a host', async () => {
    const { context, page } = await openPage(browser, { width: 1024 });
    try {
      await signIn(page, '/%5Cevil.example', '/%5Cevil.example');
      await expect.poll(() => page.url(), { timeout: 10_000 }).toBe(`${storeUrl}/%5Cevil.example`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
    } finally {
      await context.close();
    }
  });
});
