/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { listViolations } from '../../core/integrity/csp-reports.js';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { skipWithoutChromium, untilStepReady } from '../support/chromium.js';

declare global {
  interface Window {
    cspViolations: string[];
  }
}

/**
 * The payment pages in Chromium with their integrity enforced (PCI DSS 6.4.3): every step loads its
 * scripts and stylesheets through SRI and Integrity-Policy with no CSP violation, a script whose bytes
 * changed on the way is refused, and an injected inline script is refused and reported to our collector.
 */
describe.skipIf(skipWithoutChromium())('payment pages with integrity enforced, in Chromium', () => {
  // The bank's return link is built from CHECKOUT_BASE_URL: it must lead to this page.
  const checkout = useBrowserCheckout({ name: 'Integrity Store', brandColour: '#0a7d4f' } as never, {}, { checkoutAtItsBaseUrl: true });
  const { stack } = checkout;

  /** Every securitypolicyviolation event of every page the context opens, kept in the page (an init script runs outside the page's CSP). */
  async function watched() {
    const opened = await checkout.blank();
    await opened.context.addInitScript(() => {
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(`${e.effectiveDirective} ${e.blockedURI}`));
    });
    return opened;
  }

  /** What the step loaded: every script and stylesheet with an integrity attribute, htmx and our script run, no violation. */
  async function expectIntact(page: Page, step: string) {
    await expect.poll(() => page.locator('#step').getAttribute('data-step'), { timeout: 20_000 }).toBe(step);
    const tags = await page.evaluate(() =>
      Array.from(document.querySelectorAll('script, link[rel="stylesheet"]')).map((el) => ({
        src: el.getAttribute('src') ?? el.getAttribute('href'),
        integrity: el.getAttribute('integrity'),
      })),
    );
    expect(tags.length, step).toBeGreaterThanOrEqual(3);
    for (const tag of tags) expect(tag.integrity, `${step} ${tag.src}`).toMatch(/^sha384-/);
    await expect.poll(() => page.evaluate(() => typeof (window as unknown as { htmx?: unknown }).htmx), { message: step }).toBe('object');
    expect(await page.evaluate(() => window.cspViolations), step).toEqual([]);
  }

  it('loads contact, code, card and the 3-D Secure challenge with SRI enforced and no CSP violation, nothing reported', async () => {
    // The run's database is shared with other files' stacks: this stack's pages are those on its own origin.
    const reportedHere = async () => (await listViolations(stack.db)).filter((v) => v.documentUrl.startsWith(stack.checkoutUrl));
    const before = (await reportedHere()).length;
    const cartId = await checkout.createCart();
    const { page, consoleErrors } = await watched();
    expect((await page.goto(`${stack.checkoutUrl}/?token=${cartId}`))?.status()).toBe(200);
    await expectIntact(page, 'contact');
    await page.getByLabel('Phone or email').fill('customer@example.com');
    await page.getByRole('button', { name: 'Send code', exact: true }).click();
    await expectIntact(page, 'code');
    await untilStepReady(page, { name: 'code' });
    await page.getByLabel('One-time code').fill('123456');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expectIntact(page, 'card');
    for (const lang of ['fr', 'ar']) {
      await page.goto(`${stack.checkoutUrl}/?token=${cartId}&lang=${lang}`);
      await expectIntact(page, 'card');
    }
    await page.goto(`${stack.checkoutUrl}/?token=${cartId}&lang=en`);
    await page.getByLabel('Card number').fill(SANDBOX_CARDS.challenge);
    await page.getByLabel('Expiry (MM/YY)').fill('12/30');
    await page.getByLabel('CVV').fill('123');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/3ds/sandbox-challenge', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Complete authentication' }).waitFor();
    expect(await page.evaluate(() => window.cspViolations)).toEqual([]);
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await checkout.landsOn({ page } as never, '/success');
    expect(consoleErrors).toEqual([]);
    expect((await reportedHere()).length).toBe(before);
  });

  it('refuses a script whose bytes changed on the way (SRI), and runs nothing of it', async () => {
    const cartId = await checkout.createCart();
    const { page, context } = await watched();
    let tampered = 0;
    await context.route(/\/assets\/checkout\.[0-9a-f]{12}\.js$/, async (route) => {
      tampered += 1;
      const original = await route.fetch();
      await route.fulfill({ response: original, body: `window.tampered = true;\n${await original.text()}` });
    });
    const refused: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') refused.push(m.text());
    });
    await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    await expect.poll(() => refused.join('\n')).toMatch(/integrity/i);
    expect(tampered).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { tampered?: boolean }).tampered)).toBeUndefined();
  });

  it('refuses an injected inline script and stores the report the browser sends to /csp-reports', async () => {
    const cartId = await checkout.createCart();
    const { page } = await watched();
    await page.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true;';
      document.head.appendChild(script);
    });
    expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
    await expect.poll(() => page.evaluate(() => window.cspViolations)).toEqual([expect.stringMatching(/^script-src-elem inline/)]);
    await expect
      .poll(async () => (await listViolations(stack.db)).filter((v) => v.blockedUrl === 'inline' && v.documentUrl === `${stack.checkoutUrl}/`), {
        timeout: 90_000,
        interval: 1000,
      })
      .toEqual([expect.objectContaining({ reportType: 'csp-violation', directive: 'script-src-elem', disposition: 'enforce' })]);
    expect(JSON.stringify(await stack.db`select * from csp_reports`)).not.toContain(cartId);
  }, 120_000);
});
