/// <reference lib="dom" />
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAmount } from '../../core/money.js';
import { skipWithoutChromium } from '../support/chromium.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { checkoutSteps } from '../support/checkout-steps.js';

/**
 * French, Spanish, German and Arabic (right to left) at 375 px, each reached a different way a
 * customer arrives: the merchant's ?lang=, the browser's language, and (the browser speaking none of
 * ours) the cart's country.
 */
const LANGUAGES = [
  { locale: 'ar', how: '?lang=ar', query: '&lang=ar', browserLocale: 'en-US', country: 'IE' },
  { locale: 'fr', how: '?lang=fr', query: '&lang=fr', browserLocale: 'en-US', country: 'IE' },
  { locale: 'es', how: 'a Mexican cart, the browser in Japanese', query: '', browserLocale: 'ja-JP', country: 'MX' },
  { locale: 'de', how: 'a browser in Austrian German', query: '', browserLocale: 'de-AT', country: 'IE' },
];

describe.skipIf(skipWithoutChromium())('the hosted checkout in French, Spanish, German and Arabic at 375 px', () => {
  const { createCart, open, landsOn } = useBrowserCheckout({ name: 'Europe Store' });
  const screenshots = mkdtempSync(join(tmpdir(), 'checkout-languages-'));

  describe.each(LANGUAGES)('$locale ($how)', ({ locale, query, browserLocale, country }) => {
    const { say, expectStep, verifyContactAndCode, payWith } = checkoutSteps(locale, { screenshots });
    const openIn = async () => {
      const cartId = await createCart((body) => (body.cartObject.cart.country = country));
      return open(`/?token=${cartId}${query}`, { locale: browserLocale });
    };

    it('pays: its texts, amounts formatted for it, no axe violation on any step, lands on successUrl', async () => {
      const watched = await openIn();
      const { page, consoleErrors } = watched;
      expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe(say('contact.heading'));
      expect(await page.getByTestId('total').textContent()).toBe(formatAmount(4498, 'EUR', locale));
      expect(formatAmount(4498, 'EUR', locale)).not.toBe('€44.98');
      expect(await page.locator('.total span').textContent()).toBe(say('summary.totalDue'));
      expect(await page.getByText(say('summary.items', { count: 2 })).count()).toBeGreaterThan(0);
      await verifyContactAndCode(page);
      await payWith(page, '4111 1111 1111 1111');
      await landsOn(watched, '/success');
      expect(consoleErrors).toEqual([]);
    });

    it('is declined (4000 0000 0000 0002) and lands on failureUrl; a mistake is said in it', async () => {
      const watched = await openIn();
      const { page } = watched;
      await verifyContactAndCode(page);
      await payWith(page, '4000 0000 0000 0001');
      await expect.poll(() => page.locator('#number-error').textContent()).toBe(say('error.cardNumberInvalid'));
      await expectStep(page, 'card');
      await payWith(page, '4000 0000 0000 0002');
      await landsOn(watched, '/failure');
    });
  });
});
