import { describe, expect, it } from 'vitest';
import { useBrowserCheckout } from '../support/browser-checkout.js';
import { skipWithoutChromium } from '../support/chromium.js';
import { checkoutSteps } from '../support/checkout-steps.js';

/**
 * A paid session driven through the real page in Chromium (htmx swaps, the landing on the merchant's
 * success page) asks its workflow for its state not once: each step is shown from the answer of the
 * update that reached it, kept by the page (docs/decisions/page-first-load.md, "The state mirror").
 */
describe.skipIf(skipWithoutChromium())('the checkout page in Chromium, without Temporal queries', () => {
  const checkout = useBrowserCheckout({ name: 'No Query Store' });
  const { stack } = checkout;
  const steps = checkoutSteps('en');

  /** The page's Temporal state queries so far, every reason summed (checkout_page_state_queries_total). */
  async function pageQueries(): Promise<number> {
    const text = await (await fetch(`${stack.checkoutUrl}/metrics`, { headers: { authorization: `Bearer ${stack.config.metricsToken}` } })).text();
    return [...text.matchAll(/^checkout_page_state_queries_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  }

  const ledgerStatus = async (cartId: string) => (await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`)[0]?.status;

  it('goes contact, code, card, Pay and lands on the success page with no state query', async () => {
    const cartId = await checkout.createCart();
    const before = await pageQueries();
    const watched = await checkout.open(`/?token=${cartId}`);
    const { page } = watched;
    await steps.verifyContactAndCode(page);
    // A reload at the card step is read from the page's copy too.
    await page.reload();
    await steps.expectStep(page, 'card');
    await steps.payWith(page, '4111 1111 1111 1111');
    await checkout.landsOn(watched, '/success');
    expect(await ledgerStatus(cartId)).toBe('paid');
    expect(await pageQueries()).toBe(before);
  });

  it('sends a second tab of the same browser, still at the card step, to the success page when it pays after the first', async () => {
    const cartId = await checkout.createCart();
    const first = await checkout.open(`/?token=${cartId}`);
    await steps.verifyContactAndCode(first.page);
    const second = await first.context.newPage();
    await second.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    await steps.expectStep(second, 'card');
    const before = await pageQueries();
    await steps.payWith(first.page, '4111 1111 1111 1111');
    await checkout.landsOn(first, '/success');
    await steps.payWith(second, '4111 1111 1111 1111');
    await checkout.landsOn({ ...first, page: second }, '/success');
    const orders = await stack.db<{ event: string }[]>`select event from webhook_events where cart_id = ${cartId} and event = 'order_created'`;
    expect(orders).toHaveLength(1);
    expect(await pageQueries()).toBe(before);
  });

  it('shows a second tab posting the contact step again the code step the session is at, with no second code', async () => {
    const cartId = await checkout.createCart();
    const first = await checkout.open(`/?token=${cartId}`);
    const second = await first.context.newPage();
    await second.goto(`${stack.checkoutUrl}/?token=${cartId}`);
    await steps.expectStep(second, 'contact');
    await first.page.getByLabel(steps.say('contact.label')).fill('customer@example.com');
    await first.page.getByRole('button', { name: steps.say('contact.submit'), exact: true }).click();
    await steps.expectStep(first.page, 'code');
    const before = await pageQueries();
    await second.getByLabel(steps.say('contact.label')).fill('someone.else@example.com');
    await second.getByRole('button', { name: steps.say('contact.submit'), exact: true }).click();
    await steps.expectStep(second, 'code');
    expect(await second.locator('#step').textContent()).toContain('c***');
    expect(await pageQueries()).toBe(before);
  });
});
