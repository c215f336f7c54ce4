/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { waitFor } from '../support/wait-for.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, untilStepReady } from '../support/chromium.js';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from '../support/axe.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';

/**
 * axe-core's WCAG 2.2 AA rules and its best practices (one h1, landmarks) must find nothing: a failure
 * lists each rule, element and reason.
 */
async function expectNoViolations(page: Page, what: string) {
  const violations = await axeViolations(page, [...WCAG_22_AA_TAGS, BEST_PRACTICE_TAG]);
  expect(
    violations.map((v) => `${v.id} ×${v.nodes.length}`),
    `${what}:\n${describeViolations(violations)}`,
  ).toEqual([]);
}

/** The page at a width with neither a sideways scroll nor a violation. */
async function expectAccessible(page: Page, what: string) {
  await expectNoViolations(page, what);
  expect(await horizontalOverflow(page), `${what}: sideways scroll`).toBe(0);
}

/** Every step and state of the page, at 375 px, then at 320 px (what 200 % zoom of a 640 px window leaves). */
async function atPhoneWidths(page: Page, what: string) {
  await expectAccessible(page, `${what} at 375 px`);
  await page.setViewportSize({ width: 320, height: 640 });
  await expectAccessible(page, `${what} at 320 px`);
  await page.setViewportSize({ width: 375, height: 812 });
}

describe.skipIf(skipWithoutChromium())('the hosted checkout against WCAG 2.2 AA (axe-core)', () => {
  // The processing step is checked with a charge that never answers: the Pay post gives up on its outcome soon.
  const checkout = useBrowserCheckout({ name: 'Accessible Store' }, { PAY_OUTCOME_WAIT_MS: '300' });
  const { stack } = checkout;
  const watch = async (): Promise<Page> => (await checkout.blank()).page;
  const createCart = () => checkout.createCart();
  const open = async (cartId: string): Promise<Page> => (await checkout.open(`/?token=${cartId}`)).page;

  it('passes on every step and on every step with a mistake to fix', async () => {
    const page = await open(await createCart());
    await expectNoViolations(page, 'contact step');
    // The per-second clock is not read out; a polite summary says the time left instead.
    expect(await page.locator('.countdown-clock').getAttribute('aria-hidden')).toBe('true');
    expect(
      await page
        .getByRole('status')
        .filter({ hasText: /This session expires in 4[45] minutes/ })
        .count(),
    ).toBe(1);
    await atPhoneWidths(page, 'contact step');

    await page.getByLabel('Phone or email').fill('not a contact');
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await page.locator('#contact-error').waitFor();
    await atPhoneWidths(page, 'contact step, invalid contact');

    await page.getByLabel('Phone or email').fill('customer@example.com');
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await page.getByLabel('One-time code').waitFor();
    await untilStepReady(page, { name: 'code' });
    await atPhoneWidths(page, 'code step');

    await page.getByLabel('One-time code').fill('000001');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.locator('#code-error').waitFor();
    await untilStepReady(page, { name: 'code' });
    await atPhoneWidths(page, 'code step, wrong code');

    await page.getByLabel('One-time code').fill(stack.config.sandboxOtp);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByLabel('Card number').waitFor();
    await untilStepReady(page, { id: 'number' });
    await atPhoneWidths(page, 'card step');

    await page.getByLabel('Card number').fill('4111 1111 1111 1112');
    await page.getByLabel('Expiry (MM/YY)').fill('01/20');
    await page.getByLabel('CVV').fill('12');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.locator('#number-error').waitFor();
    await untilStepReady(page, { id: 'number' });
    await atPhoneWidths(page, 'card step, invalid card');
    // Each mistake is tied to its field, and the first field to fix has the cursor.
    for (const name of ['number', 'expiry', 'cvv']) {
      const input = page.locator(`#${name}`);
      expect(await input.getAttribute('aria-invalid')).toBe('true');
      expect((await input.getAttribute('aria-describedby'))?.split(' ')).toContain(`${name}-error`);
    }
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('number');

    // A processor that never answers (nor is found by lookup) keeps the page on "Confirming your payment".
    await page.getByLabel('Card number').fill(SANDBOX_CARDS.processorError);
    await page.getByLabel('Expiry (MM/YY)').fill('12/30');
    await page.getByLabel('CVV').fill('123');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.locator('#step[data-step="processing"]').waitFor();
    await atPhoneWidths(page, 'processing step');
    // Asked for less motion, the spinner stands still. Polled: the step's poll swaps the panel every
    // second, and a spinner read just as it is swapped out has no computed style.
    const spinnerAnimation = () => page.locator('.spinner').evaluate((el) => getComputedStyle(el).animationName);
    await expect.poll(spinnerAnimation).toBe('spin');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect.poll(spinnerAnimation).toBe('none');
  });

  it('passes on the 404 page and on the 410 page of a used link', async () => {
    const page = await watch();
    expect((await page.goto(`${stack.checkoutUrl}/?token=${'0'.repeat(32)}`))?.status()).toBe(404);
    await atPhoneWidths(page, '404 page');

    const cartId = await createCart();
    const used = await open(cartId);
    await used.getByRole('button', { name: 'Cancel', exact: true }).click();
    await used.waitForURL((url) => url.origin === checkout.merchant().baseUrl, { timeout: 20_000 });
    await waitFor(
      async () => ((await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`)[0]?.status === 'cancelled' ? true : undefined),
      { what: 'status cancelled' },
    );
    expect((await used.goto(`${stack.checkoutUrl}/?token=${cartId}`))?.status()).toBe(410);
    await atPhoneWidths(used, '410 page (already used)');
  });

  it('goes from the contact step to the merchant with the keyboard alone, with the focus always visible', async () => {
    const page = await open(await createCart());
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const style = el ? getComputedStyle(el) : undefined;
        return { id: el?.id ?? '', outline: style ? `${style.outlineStyle} ${style.outlineWidth}` : '' };
      });
    const outlineVisible = (outline: string) => !outline.startsWith('none') && !outline.endsWith(' 0px');

    // Tab from the top of the page to the first field (the order toggle may come first): each stop shows its focus.
    for (let presses = 0; (await focused()).id !== 'contact'; presses++) {
      expect(presses, 'Tab reaches the contact field').toBeLessThan(10);
      await page.keyboard.press('Tab');
      const now = await focused();
      expect(outlineVisible(now.outline), `focus outline on #${now.id}: ${now.outline}`).toBe(true);
    }
    // Shift+Tab goes back and Tab returns: nothing traps the focus.
    await page.keyboard.press('Shift+Tab');
    expect((await focused()).id).not.toBe('contact');
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('contact');

    await page.keyboard.type('customer@example.com');
    await page.keyboard.press('Enter');
    // htmx swaps the code step in and puts the cursor in its field.
    await expect.poll(async () => (await focused()).id, { timeout: 10_000 }).toBe('code');
    await page.keyboard.type(stack.config.sandboxOtp);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused()).id, { timeout: 10_000 }).toBe('number');
    await page.keyboard.type('4111 1111 1111 1111');
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('expiry');
    await page.keyboard.type('12/30');
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('cvv');
    expect(outlineVisible((await focused()).outline)).toBe(true);
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.origin === checkout.merchant().baseUrl && url.pathname === '/success', { timeout: 20_000 });
  });
});

/** Sessions here last 4 seconds (test-only override), so the expired page is quick to reach. */
describe.skipIf(skipWithoutChromium())('the expired checkout against WCAG 2.2 AA (axe-core)', () => {
  const stack = useTestStack({ SESSION_LIFETIME_SECONDS: '4' });
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('passes on the 410 page of an expired session', async () => {
    const { platformUuid } = await stack.createMerchant({ name: 'Expiry Store' });
    const cartId = await createCartId(stack.apiUrl, validCartRequest(platformUuid));
    const { page } = await openPage(browser, { width: 375 });
    await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    await page.getByRole('heading', { name: 'This checkout has expired' }).waitFor({ timeout: 15_000 });
    await atPhoneWidths(page, '410 page (expired)');
  });
});
