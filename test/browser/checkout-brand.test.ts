/// <reference lib="dom" />
import { beforeAll, describe, expect, it } from 'vitest';
import { brandPalette, contrastRatio } from '../../core/brand/brand-colours.js';
import { setMerchantBrandColour } from '../../core/merchants/merchants.js';
import { skipWithoutChromium } from '../support/chromium.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { checkoutSteps } from '../support/checkout-steps.js';

/** `rgb(122, 109, 0)` as `#7a6d00`. */
const hexOf = (css: string) =>
  `#${(css.match(/\d+/g) ?? [])
    .slice(0, 3)
    .map((c) => Number(c).toString(16).padStart(2, '0'))
    .join('')}`;

describe.skipIf(skipWithoutChromium())('a merchant with a light yellow brand colour (#FFEB3B)', () => {
  const { stack, platformUuid, createCart, open, landsOn } = useBrowserCheckout({ name: 'Yellow Store' });
  const palette = brandPalette('#ffeb3b');
  const { expectStep, verifyContactAndCode, payWith } = checkoutSteps('en');

  beforeAll(async () => {
    await setMerchantBrandColour(stack.db, platformUuid(), '#FFEB3B');
  });

  it('takes the brand, darkened to read, and passes axe (color-contrast included) on every step, paid', async () => {
    expect(palette.accent).not.toBe('#ffeb3b');
    const watched = await open(`/?token=${await createCart()}`);
    const { page, consoleErrors } = watched;
    const button = page.getByRole('button', { name: 'Send code', exact: true });
    await expect.poll(async () => hexOf(await button.evaluate((el) => getComputedStyle(el).backgroundColor))).toBe(palette.accent);
    expect(contrastRatio(hexOf(await button.evaluate((el) => getComputedStyle(el).color)), palette.accent)).toBeGreaterThanOrEqual(4.5);
    // The focus ring is the brand's too, and shows against the page.
    await page.getByLabel('Phone or email').focus();
    expect(hexOf(await page.getByLabel('Phone or email').evaluate((el) => getComputedStyle(el).outlineColor))).toBe(palette.focus);
    await verifyContactAndCode(page);
    await payWith(page, '4111 1111 1111 1111');
    await landsOn(watched, '/success');
    expect(consoleErrors).toEqual([]);
  });

  it('passes with a mistake shown, and declined', async () => {
    const watched = await open(`/?token=${await createCart()}`);
    const { page } = watched;
    await verifyContactAndCode(page);
    await payWith(page, '4000 0000 0000 0001');
    await expect.poll(() => page.locator('#number-error').textContent()).toBe('This card number is not valid. Check it and try again.');
    await expectStep(page, 'card');
    await payWith(page, '4000 0000 0000 0002');
    await landsOn(watched, '/failure');
  });
});
