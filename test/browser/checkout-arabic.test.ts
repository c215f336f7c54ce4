/// <reference lib="dom" />
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatAmount } from '../../core/money.js';
import { t } from '../../web/i18n/index.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { startMerchantSite, type MerchantSite } from '../support/merchant-site.js';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from '../support/axe.js';

const ar = (key: Parameters<typeof t>[1], values?: Parameters<typeof t>[2]) => t('ar', key, values);

describe.skipIf(skipWithoutChromium())('the hosted checkout in Arabic (?lang=ar), right to left, at 375 px', () => {
  const stack = useTestStack();
  let browser: Browser;
  let merchant: MerchantSite;
  let platformUuid: string;
  const opened: WatchedPage[] = [];
  const screenshots = mkdtempSync(join(tmpdir(), 'checkout-ar-'));

  beforeAll(async () => {
    browser = await launchChromium();
    merchant = await startMerchantSite();
    platformUuid = (await stack.createMerchant({ name: 'Arabic Store', webhookUrl: merchant.webhookUrl })).platformUuid;
  });
  afterAll(async () => {
    await browser?.close();
    await merchant?.close();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((watched) => watched.context.close()));
  });

  async function createCart(): Promise<string> {
    const body = validCartRequest(platformUuid);
    body.cartObject.cart.merchantUrls = { successUrl: `${merchant.baseUrl}/success`, failureUrl: `${merchant.baseUrl}/failure` };
    return createCartId(stack.apiUrl, body);
  }

  async function open(path: string): Promise<WatchedPage> {
    const watched = await openPage(browser, { width: 375 });
    opened.push(watched);
    expect((await watched.page.goto(`${stack.checkoutUrl}${path}`))?.status()).toBe(200);
    return watched;
  }

  /** Right to left, no sideways scroll, no axe violation, and a screenshot to look at. */
  async function expectArabicStep(page: Page, step: string) {
    await expect.poll(() => page.locator('#step').getAttribute('data-step')).toBe(step);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    expect(await horizontalOverflow(page), `${step}: sideways scroll`).toBe(0);
    const violations = await axeViolations(page, [...WCAG_22_AA_TAGS, BEST_PRACTICE_TAG]);
    expect(
      violations.map((v) => `${v.id} ×${v.nodes.length}`),
      `${step}:\n${describeViolations(violations)}`,
    ).toEqual([]);
    await page.screenshot({ path: join(screenshots, `${step}.png`), fullPage: true });
  }

  async function verifyContactAndCode(page: Page) {
    await expectArabicStep(page, 'contact');
    await page.getByLabel(ar('contact.label')).fill('customer@example.com');
    await page.getByRole('button', { name: ar('contact.submit'), exact: true }).click();
    await expectArabicStep(page, 'code');
    expect(await page.getByLabel(ar('code.label')).getAttribute('dir')).toBe('ltr');
    await page.getByLabel(ar('code.label')).fill('123456');
    await page.getByRole('button', { name: ar('code.submit'), exact: true }).click();
    await expectArabicStep(page, 'card');
  }

  async function payWith(page: Page, number: string) {
    for (const key of ['card.numberLabel', 'card.expiryLabel', 'card.cvvLabel'] as const) {
      expect(await page.getByLabel(ar(key)).getAttribute('dir'), key).toBe('ltr');
    }
    await page.getByLabel(ar('card.numberLabel')).fill(number);
    await page.getByLabel(ar('card.expiryLabel')).fill('12/30');
    await page.getByLabel(ar('card.cvvLabel')).fill('123');
    await page.getByRole('button', { name: ar('card.submit'), exact: true }).click();
  }

  it('pays: Arabic texts, amounts formatted for ar, lands on successUrl', async () => {
    const cartId = await createCart();
    const { page, consoleErrors } = await open(`/?token=${cartId}&lang=ar`);
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(ar('contact.heading'));
    expect(await page.getByTestId('total').textContent()).toBe(formatAmount(4498, 'EUR', 'ar'));
    expect(formatAmount(4498, 'EUR', 'ar')).not.toBe('€44.98');
    expect(await page.locator('.total span').textContent()).toBe(ar('summary.totalDue'));
    await verifyContactAndCode(page);
    await payWith(page, '4111 1111 1111 1111');
    await page.waitForURL((url) => url.origin === merchant.baseUrl && url.pathname === '/success', { timeout: 20_000 });
    expect(consoleErrors).toEqual([]);
  });

  it('is declined (4000 0000 0000 0002) and lands on failureUrl; mistakes are said in Arabic', async () => {
    const cartId = await createCart();
    const { page } = await open(`/?token=${cartId}&lang=ar`);
    await verifyContactAndCode(page);
    await payWith(page, '4000 0000 0000 0001');
    await expect.poll(() => page.locator('#number-error').textContent()).toBe(ar('error.cardNumberInvalid'));
    await expectArabicStep(page, 'card');
    await payWith(page, '4000 0000 0000 0002');
    await page.waitForURL((url) => url.origin === merchant.baseUrl && url.pathname === '/failure', { timeout: 20_000 });
  });

  it('switches language from the page and keeps the step (no JavaScript needed)', async () => {
    const cartId = await createCart();
    const watched = await openPage(browser, { width: 375, javaScriptEnabled: false });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    expect(await page.locator('html').getAttribute('dir')).toBe('ltr');
    await page.getByLabel('Phone or email').fill('customer@example.com');
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await expect.poll(() => page.locator('#step').getAttribute('data-step')).toBe('code');
    await page.getByRole('link', { name: 'العربية' }).click();
    await expect.poll(() => page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('#step').getAttribute('data-step')).toBe('code');
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(ar('code.heading'));
    // The choice is kept: the page the next form post leads to is Arabic too.
    await page.getByLabel(ar('code.label')).fill('123456');
    await page.getByRole('button', { name: ar('code.submit'), exact: true }).click();
    await expect.poll(() => page.locator('#step').getAttribute('data-step')).toBe('card');
    expect(await page.locator('html').getAttribute('lang')).toBe('ar');
    await page.getByRole('link', { name: 'English' }).click();
    await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.locator('#step').getAttribute('data-step')).toBe('card');
  });
});
