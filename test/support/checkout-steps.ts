/// <reference lib="dom" />
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { direction, t } from '../../web/i18n/index.js';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from './axe.js';
import { horizontalOverflow, untilStepReady } from './chromium.js';

/** The checkout page's steps as a customer in `locale` goes through them in a browser, found by their labels in that language. */
export function checkoutSteps(locale: string, options: { screenshots?: string } = {}) {
  const say = (key: Parameters<typeof t>[1], values?: Parameters<typeof t>[2]) => t(locale, key, values);

  /** In the locale and its direction, no sideways scroll, no axe violation (WCAG 2.2 AA and best practice), and a screenshot to look at. */
  async function expectStep(page: Page, step: string) {
    await expect.poll(() => page.locator('#step').getAttribute('data-step')).toBe(step);
    expect(await page.locator('html').getAttribute('lang')).toBe(locale);
    expect(await page.locator('html').getAttribute('dir')).toBe(direction(locale));
    expect(await horizontalOverflow(page), `${step}: sideways scroll`).toBe(0);
    const violations = await axeViolations(page, [...WCAG_22_AA_TAGS, BEST_PRACTICE_TAG]);
    expect(
      violations.map((v) => `${v.id} ×${v.nodes.length}`),
      `${locale} ${step}:\n${describeViolations(violations)}`,
    ).toEqual([]);
    if (options.screenshots) await page.screenshot({ path: join(options.screenshots, `${locale}-${step}.png`), fullPage: true });
  }

  /** At the code step: the sandbox code typed and sent, then the card step. */
  async function enterCode(page: Page) {
    await expectStep(page, 'code');
    expect(await page.getByLabel(say('code.label')).getAttribute('dir')).toBe('ltr');
    await untilStepReady(page);
    await page.getByLabel(say('code.label')).fill('123456');
    await page.getByRole('button', { name: say('code.submit'), exact: true }).click();
    await expectStep(page, 'card');
  }

  async function verifyContactAndCode(page: Page) {
    await expectStep(page, 'contact');
    await page.getByLabel(say('contact.label')).fill('customer@example.com');
    await page.getByRole('button', { name: say('contact.submit'), exact: true }).click();
    await enterCode(page);
  }

  async function payWith(page: Page, number: string) {
    for (const key of ['card.numberLabel', 'card.expiryLabel', 'card.cvvLabel'] as const) {
      expect(await page.getByLabel(say(key)).getAttribute('dir'), key).toBe('ltr');
    }
    await untilStepReady(page);
    await page.getByLabel(say('card.numberLabel')).fill(number);
    await page.getByLabel(say('card.expiryLabel')).fill('12/30');
    await page.getByLabel(say('card.cvvLabel')).fill('123');
    await page.getByRole('button', { name: say('card.submit'), exact: true }).click();
  }

  return { say, expectStep, enterCode, verifyContactAndCode, payWith };
}
