/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from '../support/axe.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { merchantApi } from '../support/merchant-api.js';
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
 * The dashboard's API keys and audit log pages in headless Chromium at 1280 and 375 px (issue 51,
 * points 4 and 5): a key created from the form (shown once) works on the API within its scope,
 * revoked from the list it is refused at once; both decisions are in the merchant's audit log with
 * the signed-in key as actor, filtered by action, exported as formula-safe CSV; operators see them.
 */
describe.skipIf(skipWithoutChromium())('API keys and the audit log in the dashboard', () => {
  const stack = useTestStack();
  let browser: Browser;
  let merchant: CreatedMerchant;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    merchant = await stack.createMerchant({ name: 'Audit <Store>' });
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

  it(
    'creates a read key shown once, revokes it from the list, and the audit log shows both with filters and CSV, at 1280 and 375 px',
    { timeout: 120_000 },
    async () => {
      for (const width of [1280, 375]) {
        const page = await signedIn(width);
        await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API keys' }).click();
        await page.waitForURL(/\/dashboard\/api-keys$/);
        await expectAccessible(page, `${width}: API keys`);

        const name = `=HYPERLINK("x") <b>${width}</b>`;
        await page.getByLabel('Name').fill(name);
        await page.getByLabel('read:').check();
        await page.getByRole('button', { name: 'Create key' }).click();
        const shown = (await page.locator('[data-new-api-key]').textContent())!.trim();
        expect(shown).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
        await expectAccessible(page, `${width}: API keys, a key created`);
        // Its scope on the API: reads orders, refused a refund with 403 naming the scope.
        expect((await merchantApi(stack, shown).get('/orders')).status).toBe(200);
        expect((await merchantApi(stack, shown).refund('AAAAAAAAAAAAAAAAAAAAAAAA', { amount: 1 })).status).toBe(403);
        // Shown once: the list holds its prefix only.
        await page.goto(`${stack.checkoutUrl}/dashboard/api-keys`);
        expect(await page.content()).not.toContain(shown);

        await page.getByRole('button', { name: `Revoke the key ${name}` }).click();
        await expect.poll(() => page.locator('.notice').textContent()).toContain('Revoked');
        expect((await merchantApi(stack, shown).get('/orders')).status).toBe(401);
        expect((await merchantApi(stack, merchant.apiKey).get('/orders')).status).toBe(200);

        await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click();
        await page.waitForURL(/\/dashboard\/audit$/);
        await expectAccessible(page, `${width}: audit log`);
        const actions = await page.locator('[data-audit-action]').allTextContents();
        expect(actions.slice(0, 2).map((a) => a.replace('Action', '').trim())).toEqual(['api_key.revoke', 'api_key.create']);
        expect(await page.locator('[data-audit-actor]').first().textContent()).toContain('Default');

        await page.getByLabel('Action').selectOption('api_key.create');
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL(/action=api_key\.create/);
        const filtered = await page.locator('[data-audit-action]').allTextContents();
        expect(filtered.length).toBeGreaterThan(0);
        expect(filtered.every((a) => a.includes('api_key.create'))).toBe(true);
        await expectAccessible(page, `${width}: audit log, filtered`);

        const href = await page.getByRole('link', { name: 'Export these entries as CSV' }).getAttribute('href');
        const csv = await (await page.context().request.get(`${stack.checkoutUrl}${href}`)).text();
        const lines = csv.split('\r\n');
        expect(lines[0]).toBe('id,at,merchantId,actorType,actorId,actor,ip,action,target,before,after');
        expect(lines.slice(1, -1).every((l) => l.includes(',api_key.create,'))).toBe(true);
        // A key's name is the merchant's text: inside the entry's JSON, never a cell a spreadsheet would run.
        expect(csv).toContain(`""name"":""=HYPERLINK(\\""x\\"") <b>${width}</b>""`);
        expect(csv).not.toMatch(/(^|,)=/m);
      }
    },
  );

  it('operators see every merchant’s entries, narrowed to one merchant, at 1280 and 375 px', { timeout: 60_000 }, async () => {
    // An operator's own decision, through the operator API: in the log with the merchant it concerns.
    const changed = await fetch(`${stack.apiUrl}/operator/merchants/${merchant.platformUuid}/brand`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${stack.config.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ brandColour: '#1557b0' }),
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('audit-entry-id')).toMatch(/^[0-9a-f-]{36}$/);
    for (const width of [1280, 375]) {
      const watched = await openPage(browser, { width });
      opened.push(watched);
      const { page } = watched;
      await page.goto(`${stack.checkoutUrl}/dashboard/sign-in/operator`);
      await page.getByLabel('Operator token').fill(stack.config.operatorToken!);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/dashboard\/operator$/);
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click();
      await page.waitForURL(/\/dashboard\/operator\/audit$/);
      await page.getByLabel('Merchant (platformUuid)').fill(merchant.platformUuid);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/merchant=/);
      const actions = await page.locator('[data-audit-action]').allTextContents();
      expect(actions[0]).toContain('settings.update');
      expect(await page.locator('[data-audit-actor]').first().textContent()).toContain('operator-token');
      expect(await page.locator('td', { hasText: '"brandColour":"#1557b0"' }).count()).toBe(1);
      await expectAccessible(page, `${width}: operator audit log`);
    }
  });
});
