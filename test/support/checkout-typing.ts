/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { untilStepReady } from './chromium.js';

/**
 * The checkout page's English steps as a quick customer types them, each once htmx has settled it:
 * the contact, then the sandbox's code. For the steps with their checks in any language, see ./checkout-steps.ts.
 */
export async function verifyContactAndCode(page: Page, contact = 'customer@example.com'): Promise<void> {
  await page.getByLabel('Phone or email').fill(contact);
  await page.getByRole('button', { name: 'Send code', exact: true }).click();
  await untilStepReady(page, { name: 'code' });
  await page.getByLabel('One-time code').fill('123456');
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
}

/** At the card step it was sent to: a new card typed and paid. */
export async function payWith(page: Page, number: string): Promise<void> {
  await untilStepReady(page, { id: 'number' });
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM/YY)').fill('12/30');
  await page.getByLabel('CVV').fill('123');
  await page.getByRole('button', { name: 'Pay', exact: true }).click();
}
