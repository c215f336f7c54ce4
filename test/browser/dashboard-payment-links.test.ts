/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from '../support/axe.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { useTestStack } from '../support/test-stack.js';

/** axe-core's WCAG 2.2 AA rules and best practices find nothing, and nothing scrolls sideways. */
async function expectAccessible(page: Page, what: string) {
  const violations = await axeViolations(page, [...WCAG_22_AA_TAGS, BEST_PRACTICE_TAG]);
  expect(
    violations.map((v) => `${v.id} ×${v.nodes.length}`),
    `${what}:\n${describeViolations(violations)}`,
  ).toEqual([]);
  expect(await horizontalOverflow(page), `${what}: sideways scroll`).toBe(0);
}

/**
 * The dashboard's Payment links page in headless Chromium, at 1280 and 375 px: a link created through
 * the form (a refusal of the API's said at its field first), listed with its QR code, followed in the
 * same browser to a checkout session of its own, which its order page and the insights count, then closed.
 */
describe.skipIf(skipWithoutChromium())('payment links in the dashboard', () => {
  // A link's url is built from CHECKOUT_BASE_URL: the page must listen there for the browser to follow it.
  const stack = useTestStack({}, { checkoutAtItsBaseUrl: true });
  let browser: Browser;
  let merchant: CreatedMerchant;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    merchant = await stack.createMerchant({ name: 'Links <Shop>' });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    const watched = opened.splice(0);
    await Promise.all(watched.map((w) => w.context.close()));
    // A refused form answers 422 and a closed link 410, on purpose; Chromium logs both statuses.
    const errors = watched.flatMap((w) => w.consoleErrors).filter((e) => !/status of (422|410)/.test(e));
    expect(errors, 'console errors (CSP violations land here)').toEqual([]);
    expect(
      watched.flatMap((w) => w.dialogs),
      'merchant text never opens a dialog',
    ).toEqual([]);
  });

  async function signedIn(width: number): Promise<Page> {
    const watched = await openPage(browser, { width });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${stack.checkoutUrl}/dashboard/sign-in`);
    await page.getByLabel('API key').fill(merchant.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/orders$/);
    return page;
  }

  const linkIdOf = (url: string) => url.slice(url.lastIndexOf('/l/') + 3);

  it('creates a link from the form, lists it with its QR code, counts the visit it opens and closes it, at 1280 and 375 px', { timeout: 120_000 }, async () => {
    for (const width of [1280, 375]) {
      const page = await signedIn(width);
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Payment links' }).click();
      await page.waitForURL(/\/dashboard\/payment-links$/);
      // The merchant's registered domain (store.example) fills the URLs in.
      expect(await page.getByLabel('Store URL', { exact: true }).inputValue()).toBe('https://store.example');
      expect(await page.getByLabel('Success URL', { exact: true }).inputValue()).toBe('https://store.example/checkout/success');
      await expectAccessible(page, `${width}: payment links`);

      const title = `Poster <b>${width}</b> "A2"`;
      await page.getByLabel('Title', { exact: true }).fill(title);
      await page.getByLabel('Price', { exact: true }).fill('12,5');
      await page.getByLabel('Maximum paid sessions (optional)').fill('5');
      // A date the schema takes and create-payment-link.ts refuses: the API's own check, said at the field.
      await page.getByLabel('Expiry date (optional)').fill('2001-01-31');
      await page.getByRole('button', { name: 'Create link' }).click();
      await expect.poll(() => page.locator('#link-expiresOn-error').textContent()).toContain('Expiry date must be in the future');
      expect(await page.getByLabel('Expiry date (optional)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByLabel('Title', { exact: true }).inputValue()).toBe(title);
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('link-expiresOn');
      await expectAccessible(page, `${width}: a link refused at its field`);

      await page.getByLabel('Expiry date (optional)').fill('2099-12-31');
      await page.getByRole('button', { name: 'Create link' }).click();
      const created = page.locator('#payment-links .notice code');
      await expect.poll(() => created.count()).toBe(1);
      const url = (await created.textContent())!;
      expect(url).toMatch(new RegExp(`^${stack.config.checkoutBaseUrl}/l/pl_[A-Za-z0-9_-]{22}$`));
      const row = page.locator(`tr[data-link-id="${linkIdOf(url)}"]`);
      expect(await row.locator('[data-link-status]').textContent()).toBe('Active');
      expect(await row.textContent()).toContain(`${title}, €12.50`);
      expect(await row.textContent()).toContain('2100-01-01 00:00:00 UTC');
      const qr = row.getByRole('img', { name: `QR code for ${url}` });
      expect(await qr.evaluate((element) => element.tagName.toLowerCase())).toBe('svg');
      expect(await row.locator('[data-link-visits]').textContent()).toBe('0');
      await expectAccessible(page, `${width}: a link created`);

      // Reflowed, not clipped: the table's box scrolls no more than the page, and the QR code lies within the screen.
      const table = page.getByRole('region', { name: 'Payment links table' });
      expect(await table.evaluate((box) => box.scrollWidth - box.clientWidth)).toBe(0);
      const box = await qr.boundingBox();
      expect(box!.x + box!.width, `${width}: QR code within the screen`).toBeLessThanOrEqual(width);
      expect(await row.evaluate((tr) => getComputedStyle(tr).display)).toBe(width === 1280 ? 'table-row' : 'block');

      // Followed in the same browser: a session of its own, on the checkout page.
      const visit = await page.goto(url);
      expect(visit?.status()).toBe(200);
      const cartId = new URL(page.url()).searchParams.get('token')!;
      const [cart] = await stack.db<{ payment_link_id: string }[]>`select payment_link_id from carts where cart_id = ${cartId}`;
      expect(cart?.payment_link_id).toBe(linkIdOf(url));
      await page.goto(`${stack.checkoutUrl}/dashboard/orders/${cartId}`);
      expect(await page.locator('[data-payment-link]').textContent()).toBe(`From payment link ${linkIdOf(url)}`);
      await page.goto(`${stack.checkoutUrl}/dashboard/insights?days=1`);
      expect(await page.locator('[data-figure="link-sessions"]').textContent()).toBe(width === 1280 ? '1' : '2');
      await page.goto(`${stack.checkoutUrl}/dashboard/payment-links`);
      expect(await row.locator('[data-link-visits]').textContent()).toBe('1');

      // Asked first, naming the link as typed: dismissed, it stays open; accepted, it closes.
      const { expectDialog } = opened.at(-1)!;
      const dismissed = expectDialog('dismiss');
      await row.getByRole('button', { name: /^Close Poster/ }).click();
      expect(await dismissed).toContain(`Close the link for ${title}?`);
      expect(await row.locator('[data-link-status]').textContent()).toBe('Active');
      const accepted = expectDialog('accept');
      await row.getByRole('button', { name: /^Close Poster/ }).click();
      await accepted;
      await expect.poll(() => row.locator('[data-link-status]').textContent()).toBe('Closed');
      expect(await page.locator('#payment-links .notice').textContent()).toContain(`Closed ${linkIdOf(url)}`);
      expect(await row.getByRole('button', { name: /^Close/ }).count()).toBe(0);
      await expectAccessible(page, `${width}: a link closed`);
      expect((await page.goto(url))?.status()).toBe(410);
    }
  });
});
