/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { freePort } from '../../scripts/free-port.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { payWith, verifyContactAndCode } from '../support/checkout-typing.js';
import { startDemoStoreOnStack } from '../support/demo-store.js';
import { useTestStack } from '../support/test-stack.js';

/** Text of a locator on a page that refreshes itself: '' while a reload is under way. */
const textOf = (page: Page, testId: string) =>
  page
    .getByTestId(testId)
    .first()
    .textContent({ timeout: 1_000 })
    .catch(() => '');

describe.skipIf(skipWithoutChromium())('the demo store in headless Chromium, on the real stack', () => {
  // The checkout page where CHECKOUT_BASE_URL says: a retry's url is built on it.
  const stack = useTestStack({}, { checkoutAtItsBaseUrl: true });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'demo-store-browser-'));
  let browser: Browser;
  let store: { url: string; close: () => Promise<void>; ownerPassword: string };
  let storeUrl: string;
  let merchant: CreatedMerchant;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    const port = await freePort();
    // A .localhost name, which Chromium resolves to loopback, as the customer's address of the store.
    storeUrl = `http://store.localhost:${port}`;
    merchant = await stack.createMerchant({ name: 'Demo Store', webhookUrl: `http://127.0.0.1:${port}/webhooks` });
    store = await startDemoStoreOnStack(stack, merchant, { port, baseUrl: storeUrl, ordersFile: path.join(dataDir, 'orders.json'), log: () => {} });
  });
  afterAll(async () => {
    await store?.close();
    await browser?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('buys, pays with the sandbox values, sees the order fulfilled by the webhook, refunds part from the store and part from the dashboard, and sees each order_refunded verified', async () => {
    const watched = await openPage(browser, { width: 1024 });
    opened.push(watched);
    const { page, consoleErrors, dialogs } = watched;

    await page.goto(storeUrl);
    await page.getByLabel('Quantity of Notebook').fill('2');
    await page.getByLabel('Quantity of Tea towel').fill('1');
    await page.getByRole('button', { name: 'Update total' }).click();
    await expect.poll(() => textOf(page, 'total')).toBe('€38.50');
    await page.getByRole('button', { name: 'Pay with Hosted Checkout' }).click();

    await page.waitForURL((url) => url.origin === new URL(stack.checkoutUrl).origin, { timeout: 20_000 });
    await expect.poll(() => page.getByTestId('total').textContent()).toBe('€38.50');
    await verifyContactAndCode(page);
    await payWith(page, '4111 1111 1111 1111');

    await page.waitForURL((url) => url.origin === storeUrl && url.pathname.startsWith('/orders/ord_'), { timeout: 30_000 });
    const landed = new URL(page.url());
    expect(landed.searchParams.get('return')).toBe('success');
    const cartId = landed.searchParams.get('cartId');
    // Fulfilled by the webhook, which the page waits for: the redirect alone never fulfils.
    await expect.poll(() => textOf(page, 'fulfilled'), { timeout: 30_000 }).toMatch(/^yes, /);
    expect(await textOf(page, 'status')).toBe('paid');
    const history = await page.getByTestId('webhooks').innerText();
    // Approved at once: order_created is the order's first event (no processing announced).
    expect(history).not.toMatch(/processing/);
    expect(history).toMatch(/order_created\s+1\s+paid\s+yes/);
    expect(await page.content()).toContain(cartId);

    // Refund part of it from the store, through the merchant API.
    const orderId = landed.pathname.split('/').at(-1)!;
    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    // The orders and refunds are the store owner's: the link leads to the sign-in form first.
    await page.waitForURL(`${storeUrl}/login?next=%2Forders`);
    await page.getByLabel('Password').fill(store.ownerPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${storeUrl}/orders`);
    const [session] = await page.context().cookies(storeUrl);
    expect(session).toMatchObject({ name: 'demo_store_owner', httpOnly: true, sameSite: 'Strict', secure: false });
    const order = page.locator(`[id="${orderId}"]`);
    await order.getByLabel('Refund amount (EUR)').fill('100.00');
    await order.getByRole('button', { name: 'Refund', exact: true }).click();
    // The API's own message, from its error envelope.
    await expect
      .poll(() => textOf(page, 'refund-error'))
      .toContain('At most 3850 (minor units of EUR) remains refundable on this order of 3850; ask for 3850 or less. amount: must be at most 3850');
    await order.getByLabel('Refund amount (EUR)').fill('5.00');
    await order.getByLabel('Reason').fill('Scratched cover');
    await order.getByRole('button', { name: 'Refund', exact: true }).click();
    // The page refreshes itself until the refund's order_refunded has arrived, verified.
    const orderHistory = () =>
      order
        .getByTestId('webhooks')
        .innerText({ timeout: 1_000 })
        .catch(() => '');
    await expect.poll(orderHistory, { timeout: 60_000 }).toMatch(/order_refunded\s+2\s+partially_refunded\s+yes/);
    await expect.poll(() => order.getByTestId('status').textContent()).toBe('partially_refunded');
    expect(await order.innerText()).toContain('Scratched cover');
    expect(await order.locator('table.refunds tbody tr').innerText()).toMatch(/€5\.00\s+Scratched cover\s+succeeded\s+\S+\s+20\d\d-/);

    // The same merchant refunds again from our dashboard, signed in with the store's API key, and the
    // store receives that refund's order_refunded too, verified.
    await page.goto(`${stack.checkoutUrl}/dashboard`);
    await page.getByLabel('API key').fill(merchant.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/orders$/);
    await page.getByRole('link', { name: cartId! }).click();
    await page.waitForURL(new RegExp(`/dashboard/orders/${cartId}$`));
    await page.getByLabel('Amount (EUR)').fill('3.00');
    await page.getByLabel(/Reason/).fill('Late delivery');
    await page.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => page.locator('[data-refunded-total]').getAttribute('data-refunded-total'), { timeout: 15_000 }).toBe('800');
    // The store did not ask for this refund, so its page has nothing to wait for: reload until the webhook is there.
    const orderHistoryReloaded = async () => {
      await page.goto(`${storeUrl}/orders`);
      return orderHistory();
    };
    await expect.poll(orderHistoryReloaded, { timeout: 60_000, interval: 1_000 }).toMatch(/order_refunded\s+3\s+partially_refunded\s+yes/);

    // Readable on a phone: at 375 px the order's tables fold inside the page, no sideways scroll.
    await page.setViewportSize({ width: 375, height: 812 });
    for (const pagePath of ['/', '/orders', `/orders/${orderId}`]) {
      await page.goto(`${storeUrl}${pagePath}`);
      expect(await horizontalOverflow(page), `${pagePath}: sideways scroll at 375 px`).toBe(0);
    }
    // Folded, not shrunk: each cell a row of its own under its column's name.
    expect(
      await page
        .getByTestId('webhooks')
        .locator('td')
        .first()
        .evaluate((td) => getComputedStyle(td).display),
    ).toBe('grid');

    // The refused refund's page is answered 422, which Chromium reports; nothing else may be.
    expect(consoleErrors.filter((e) => !e.includes('status of 422'))).toEqual([]);
    expect(dialogs).toEqual([]);
    // A purchase and a refund through two servers and a browser, on a machine that may be busy.
  }, 180_000);

  it('sells the ship-later bowl: authorized at checkout, back at the store awaiting shipment, then Ship and capture charges it and fulfils the order', async () => {
    const watched = await openPage(browser, { width: 375 });
    opened.push(watched);
    const { page, consoleErrors, dialogs } = watched;

    await page.goto(storeUrl);
    await page.getByLabel('Quantity of Serving bowl (ships later)').fill('1');
    await page.getByRole('button', { name: 'Pay with Hosted Checkout' }).click();
    await page.waitForURL((url) => url.origin === new URL(stack.checkoutUrl).origin, { timeout: 20_000 });
    await expect.poll(() => page.getByTestId('total').textContent()).toBe('€34.00');
    await verifyContactAndCode(page);
    await payWith(page, '4111 1111 1111 1111');

    // Back at the store's order page (its successUrl), not at the checkout's "already been used".
    await page.waitForURL((url) => url.origin === storeUrl && url.pathname.startsWith('/orders/ord_'), { timeout: 30_000 });
    const landed = new URL(page.url());
    expect(landed.searchParams.get('return')).toBe('success');
    const cartId = landed.searchParams.get('cartId')!;
    const orderId = landed.pathname.split('/').at(-1)!;
    const [cart] = await stack.db<{ status: string; cart: { captureMethod?: string } }[]>`select status, cart from carts where cart_id = ${cartId}`;
    expect(cart).toMatchObject({ status: 'authorized', cart: { captureMethod: 'manual' } });

    // The order_created (authorized) webhook arrives: the card is held, the bowl not shipped, nothing charged.
    await expect.poll(() => textOf(page, 'status'), { timeout: 30_000 }).toBe('authorized');
    expect(await textOf(page, 'outcome')).toMatch(/authorized.*awaiting shipment/i);
    expect(await textOf(page, 'fulfilled')).toBe('no');
    expect(await page.getByTestId('webhooks').innerText()).toMatch(/order_created\s+1\s+authorized\s+yes/);
    expect(await horizontalOverflow(page)).toBe(0);

    // The owner ships it: Ship and capture on the orders page.
    await page.goto(`${storeUrl}/login?next=%2Forders`);
    await page.getByLabel('Password').fill(store.ownerPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${storeUrl}/orders`);
    const order = page.locator(`[id="${orderId}"]`);
    expect(await order.innerText()).toMatch(/awaiting shipment/i);
    await order.getByRole('button', { name: 'Ship and capture', exact: true }).click();
    await page.waitForURL(`${storeUrl}/orders#${orderId}`);
    const [charge] = await stack.db<{ captured_amount: string | null }[]>`select captured_amount from sandbox_charges where idempotency_key = ${cartId}`;
    expect(Number(charge?.captured_amount)).toBe(3400);

    // The capture's order_updated (paid) reaches the store: the order is charged and fulfilled.
    const customerView = async (testId: string) => {
      await page.goto(`${storeUrl}/orders/${orderId}`);
      return textOf(page, testId);
    };
    await expect.poll(() => customerView('fulfilled'), { timeout: 30_000, interval: 1_000 }).toMatch(/^yes, /);
    expect(await textOf(page, 'status')).toBe('paid');
    expect(await textOf(page, 'outcome')).toMatch(/fulfilled/);
    expect(await page.getByTestId('webhooks').innerText()).toMatch(/order_created\s+1\s+authorized\s+yes[\s\S]*order_updated\s+2\s+paid\s+yes/);
    expect(consoleErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  }, 120_000);

  it('after a declined card, Try another card on the failure page opens a new session of the same cart; paid with another card, the same order is fulfilled', async () => {
    const watched = await openPage(browser, { width: 1024 });
    opened.push(watched);
    const { page, consoleErrors, dialogs } = watched;
    const payOnCheckout = async (card: string) => {
      await page.waitForURL((url) => url.origin === new URL(stack.checkoutUrl).origin, { timeout: 20_000 });
      await expect.poll(() => page.getByTestId('total').textContent()).toBe('€12.00');
      await verifyContactAndCode(page);
      await payWith(page, card);
      await page.waitForURL((url) => url.origin === storeUrl && url.pathname.startsWith('/orders/ord_'), { timeout: 30_000 });
      return new URL(page.url());
    };

    await page.goto(storeUrl);
    await page.getByLabel('Quantity of Espresso cup').fill('1');
    await page.getByRole('button', { name: 'Pay with Hosted Checkout' }).click();
    const failed = await payOnCheckout('4000 0000 0000 0002');
    expect(failed.searchParams.get('return')).toBe('failure');
    const firstCartId = failed.searchParams.get('cartId')!;
    const orderId = failed.pathname.split('/').at(-1)!;
    // The failure redirect proves nothing: the button comes with the webhook that says failed.
    await expect.poll(() => textOf(page, 'status'), { timeout: 30_000 }).toBe('failed');
    await page.getByRole('button', { name: 'Try another card', exact: true }).click();

    const paid = await payOnCheckout('4111 1111 1111 1111');
    expect(paid.searchParams.get('return')).toBe('success');
    expect(paid.pathname).toBe(`/orders/${orderId}`);
    const retryCartId = paid.searchParams.get('cartId')!;
    expect(retryCartId).not.toBe(firstCartId);
    await expect.poll(() => textOf(page, 'fulfilled'), { timeout: 30_000 }).toMatch(/^yes, /);
    expect(await textOf(page, 'status')).toBe('paid');
    expect(await textOf(page, 'earlier-carts')).toBe(firstCartId);
    // Both carts' events on the one order, the failed cart's first, each cart counting its own sequence.
    expect(await page.getByTestId('webhooks').innerText()).toMatch(/order_updated\s+1\s+failed\s+yes[\s\S]*order_created\s+1\s+paid\s+yes/);

    const [created] = await stack.db<{ payload: { data: { retryOf: string | null; status: string } } }[]>`
      select payload from webhook_events where cart_id = ${retryCartId} and event = 'order_created'`;
    expect(created?.payload.data).toMatchObject({ status: 'paid', retryOf: firstCartId });
    const carts = await stack.db<{ cart_id: string; status: string; retry_of: string | null }[]>`
      select cart_id, status, retry_of from carts where cart_id in ${stack.db([firstCartId, retryCartId])} order by created_at`;
    expect(carts).toEqual([
      { cart_id: firstCartId, status: 'failed', retry_of: null },
      { cart_id: retryCartId, status: 'paid', retry_of: firstCartId },
    ]);
    expect(consoleErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  }, 120_000);

  it('after the owner signs in, stays on the store whatever next says: /<tab>/evil.example is not followed off-site', async () => {
    const watched = await openPage(browser, { width: 1024 });
    opened.push(watched);
    const { page } = watched;
    // Were the browser sent there, it would land here (and the test would say so), not on a DNS error.
    await page.route(/^https?:\/\/evil\.example\//, (route) => route.fulfill({ contentType: 'text/html', body: '<h1>evil</h1>' }));
    for (const next of ['/\t/evil.example', '/\\evil.example', '//evil.example']) {
      await page.context().clearCookies();
      await page.goto(`${storeUrl}/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Password').fill(store.ownerPassword);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      // Off-site, the redirect would land on evil.example, or be stopped by the store's CSP form-action.
      await expect
        .poll(() => page.url(), { timeout: 10_000, message: `${JSON.stringify(next)}: ${watched.consoleErrors.join(' | ')}` })
        .toBe(`${storeUrl}/orders`);
    }
  });
});
