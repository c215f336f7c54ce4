/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { skipWithoutChromium, untilStepReady } from '../support/chromium.js';
import { seedSavedCard } from '../support/saved-cards.js';

/**
 * After htmx swaps a step in, the focus goes where the customer acts next (web/assets/checkout.js,
 * focusStep). At the card step of a customer with a saved card the card fields are folded away, and a
 * hidden field takes no focus: it lands on the saved card, not on the page's body, so a keyboard or
 * screen-reader customer does not start again from the top of the page.
 */
describe.skipIf(skipWithoutChromium())('the focus after the code, at a card step with a saved card', () => {
  const checkout = useBrowserCheckout({ name: 'Focus Store' });
  const { stack } = checkout;

  it('puts the focus in the card step (the saved card), not on <body>', async () => {
    const contact = `focus-${randomUUID().slice(0, 8)}@example.com`;
    await seedSavedCard(stack, contact, '4111111111111111', `earlier-${contact}`);
    const cartId = await checkout.createCart();
    const { page } = await checkout.open(`/?token=${cartId}`);
    await page.getByLabel('Phone or email').fill(contact);
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await untilStepReady(page, { name: 'code' });
    await page.getByLabel('One-time code').fill(stack.config.sandboxOtp);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.locator('[data-step="card"]').waitFor();
    await untilStepReady(page);
    // The saved card is offered (the setup worked) ...
    expect(await page.getByRole('radio', { name: /Visa •••• 1111/ }).isChecked()).toBe(true);
    // ... and it has the focus.
    await expect
      .poll(() => page.evaluate(() => ({ tag: document.activeElement?.tagName, inStep: Boolean(document.activeElement?.closest('#step')) })), {
        timeout: 3_000,
      })
      .toEqual({ tag: 'INPUT', inStep: true });
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).type)).toBe('radio');
  });
});
