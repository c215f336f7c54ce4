/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../web/dashboard/session.js';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from '../support/axe.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { addPerson, sessionFor } from '../support/dashboard-people.js';
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
 * "Your tokens" in headless Chromium at 1280 and 375 px: an operator signed in as themselves makes a
 * personal token (shown once), which the operator API takes, and revokes it from the list, after which
 * the API refuses it.
 */
describe.skipIf(skipWithoutChromium())("an operator's personal tokens in the dashboard", () => {
  // From an address of its own: the refusal at the end must not count against 127.0.0.1's wrong tokens.
  const stack = useTestStack({ TRUST_PROXY: '1' });
  const merchants = (token: string) =>
    fetch(`${stack.apiUrl}/operator/merchants`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 254) + 1}` },
    });
  let browser: Browser;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    const watched = opened.splice(0);
    await Promise.all(watched.map((w) => w.context.close()));
    expect(
      watched.flatMap((w) => w.consoleErrors),
      'console errors (CSP violations land here)',
    ).toEqual([]);
  });

  it('makes a token shown once, which the operator API takes, and revokes it from the list, at 1280 and 375 px', { timeout: 120_000 }, async () => {
    for (const width of [1280, 375]) {
      const operator = await addPerson(stack.db, null, 'operator');
      const watched = await openPage(browser, { width });
      opened.push(watched);
      const { page, context } = watched;
      await context.addCookies([{ name: SESSION_COOKIE, value: await sessionFor(stack.db, operator), url: `${stack.checkoutUrl}/dashboard` }]);
      await page.goto(`${stack.checkoutUrl}/dashboard/operator`);
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Your tokens' }).click();
      await page.waitForURL(/\/dashboard\/operator\/tokens$/);
      await expectAccessible(page, `${width}: your tokens, none yet`);

      await page.getByLabel('Name').fill(`<b>cli ${width}</b>`);
      await page.getByRole('button', { name: 'Create token' }).click();
      const shown = (await page.locator('[data-new-operator-token]').textContent())!.trim();
      expect(shown).toMatch(/^opt_[A-Za-z0-9_-]{43}$/);
      await expectAccessible(page, `${width}: your tokens, one created`);
      expect((await merchants(shown)).status).toBe(200);

      await page.getByRole('button', { name: `Revoke the token <b>cli ${width}</b>` }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Revoked');
      expect(await page.content()).not.toContain(shown);
      await expectAccessible(page, `${width}: your tokens, one revoked`);
      expect((await merchants(shown)).status).toBe(401);
    }
  });
});
