/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { skipWithoutChromium } from '../support/chromium.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { checkoutSteps } from '../support/checkout-steps.js';

/** Paying and being declined in Arabic, right to left, are in checkout-languages.test.ts with the other languages. */
describe.skipIf(skipWithoutChromium())('the hosted checkout in Arabic (?lang=ar), right to left, at 375 px', () => {
  const { createCart, open } = useBrowserCheckout({ name: 'Arabic Store' });
  const { say: ar } = checkoutSteps('ar');

  it('switches language from the page and keeps the step (no JavaScript needed)', async () => {
    const cartId = await createCart();
    const { page } = await open(`/?token=${cartId}`, { javaScriptEnabled: false });
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
