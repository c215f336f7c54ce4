/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { brandPalette } from '../../core/brand/brand-colours.js';
import { axeViolations, BEST_PRACTICE_TAG, describeViolations, WCAG_22_AA_TAGS } from '../support/axe.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { horizontalOverflow, launchChromium, openPage, skipWithoutChromium, type WatchedPage } from '../support/chromium.js';
import { useTestStack } from '../support/test-stack.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantApi } from '../support/merchant-api.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** axe-core's WCAG 2.2 AA rules and best practices find nothing, and nothing scrolls sideways. */
async function expectAccessible(page: Page, what: string) {
  const violations = await axeViolations(page, [...WCAG_22_AA_TAGS, BEST_PRACTICE_TAG]);
  expect(
    violations.map((v) => `${v.id} ×${v.nodes.length}`),
    `${what}:\n${describeViolations(violations)}`,
  ).toEqual([]);
  expect(await horizontalOverflow(page), `${what}: sideways scroll`).toBe(0);
}

describe.skipIf(skipWithoutChromium())('the dashboard in a browser', () => {
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500' });
  let browser: Browser;
  let receiver: WebhookReceiver;
  let merchant: CreatedMerchant;
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    receiver = await startWebhookReceiver(() => ({ status: 200, body: 'thanks, verified' }));
    merchant = await stack.createMerchant({ name: 'Dashboard <Store>', webhookUrl: receiver.url });
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
  });
  afterEach(async () => {
    const watched = opened.splice(0);
    await Promise.all(watched.map((w) => w.context.close()));
    // A refusal answered 422 is the dashboard saying so at the field (htmx swaps it in); Chromium logs its status.
    const errors = watched.flatMap((w) => w.consoleErrors).filter((e) => !/status of 422/.test(e));
    expect(errors, 'console errors (CSP violations land here)').toEqual([]);
  });

  async function watch(width = 1280): Promise<Page> {
    const watched = await openPage(browser, { width });
    opened.push(watched);
    return watched.page;
  }

  async function signIn(page: Page, apiKey: string) {
    await page.goto(`${stack.checkoutUrl}/dashboard`);
    await expect.poll(() => page.url()).toContain('/dashboard/sign-in');
    await expectAccessible(page, 'sign-in');
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/orders$/);
  }

  /** A cart paid with the sandbox card, as the hosted page pays it, and its order_created delivered. */
  async function paidCart(): Promise<string> {
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = await driver.verifiedSession();
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    await waitFor(() => (delivered('order_created', session.cartId) ? true : undefined), { what: 'order_created at the receiver' });
    return session.cartId;
  }

  /** The receiver's verified events of this name for this cart. */
  function delivered(event: string, cartId: string) {
    return receiver.requests
      .map((r) => verifyWebhook(r.rawBody, r.headers, merchant.webhookSecret))
      .filter((v) => v.valid)
      .map(
        (v) =>
          v.event as unknown as { event: string; data: { cartId: string; status: string; refund?: { amount: number; refundedTotal: number; reason: string } } },
      )
      .find((e) => e.event === event && e.data.cartId === cartId);
  }

  it('a merchant signs in, finds a paid order, refunds part of it and sees order_refunded delivered in its timeline', async () => {
    const cartId = await paidCart();
    const page = await watch();
    await signIn(page, merchant.apiKey);
    await expect.poll(() => page.locator('.dash-who').textContent()).toBe('Dashboard <Store>');
    await expectAccessible(page, 'orders');

    await page.getByLabel('Status').selectOption('paid');
    await page.getByLabel('Extra key').fill('orderRef');
    await page.getByLabel('Extra value').fill('order-42');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=paid/);
    await expect.poll(() => page.getByRole('link', { name: cartId }).count()).toBe(1);
    await expectAccessible(page, 'orders, filtered');

    await page.getByRole('link', { name: cartId }).click();
    await page.waitForURL(new RegExp(`/dashboard/orders/${cartId}$`));
    await expect.poll(() => page.locator('[data-order-status]').getAttribute('data-order-status')).toBe('paid');
    expect(await page.locator('main').textContent()).toContain('visa •••• 1111');
    await expectAccessible(page, 'order');

    await page.getByLabel('Amount (EUR)').fill('44.99');
    await page.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => page.locator('#refund-amount-error').textContent()).toContain('€44.98');
    expect(await page.getByLabel('Amount (EUR)').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('refund-amount');
    await expectAccessible(page, 'refund refused at its field');

    await page.getByLabel('Amount (EUR)').fill('10.00');
    await page.getByLabel(/Reason/).fill('Damaged <in> transit');
    await page.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => page.locator('[data-order-status]').getAttribute('data-order-status'), { timeout: 15_000 }).toBe('partially_refunded');
    await expect
      .poll(() => page.locator('[data-event="order_refunded"]').getAttribute('data-delivery'), {
        timeout: 20_000,
        message: 'order_refunded delivered in the timeline',
      })
      .toBe('delivered');
    expect(await page.locator('#timeline').textContent()).toContain('thanks, verified');
    expect(await page.locator('[data-refunded-total]').getAttribute('data-refunded-total')).toBe('1000');
    await expectAccessible(page, 'order after a refund');

    const refunded = delivered('order_refunded', cartId);
    expect(refunded?.data.status).toBe('partially_refunded');
    expect(refunded?.data.refund).toMatchObject({ amount: 1000, refundedTotal: 1000, reason: 'Damaged <in> transit' });
  });

  it('shows webhook settings, sends a signed test event, and an operator disabling the endpoint shows there and finds a paid cart', async () => {
    const paidCartId = await paidCart();
    const page = await watch();
    await signIn(page, merchant.apiKey);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(/\/dashboard\/webhooks$/);
    await expectAccessible(page, 'webhook settings');
    expect(await page.locator('[data-endpoint-status]').getAttribute('data-endpoint-status')).toBe('enabled');

    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => page.locator('#test-event').textContent()).toContain('answered HTTP 200');
    const test = receiver.requests.slice(before).find((r) => r.headers['x-client-event'] === 'webhook_test');
    expect(test && verifyWebhook(test.rawBody, test.headers, merchant.webhookSecret).valid).toBe(true);

    const operator = await watch();
    await operator.goto(`${stack.checkoutUrl}/dashboard/sign-in/operator`);
    await operator.getByLabel('Operator token').fill(stack.config.operatorToken!);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await operator.waitForURL(/\/dashboard\/operator$/);
    await expectAccessible(operator, 'operator: merchants');
    await operator.getByRole('button', { name: 'Disable endpoint: Dashboard <Store>' }).click();
    await expect.poll(() => operator.locator('#merchants .notice').textContent()).toContain('no longer receives webhooks');

    await operator.getByRole('link', { name: 'Dashboard <Store>' }).click();
    await operator.waitForURL(new RegExp(`/dashboard/operator/merchants/${merchant.platformUuid}$`));
    const workflowLink = operator.getByRole('link', { name: /Open in Temporal UI/ }).first();
    expect(await workflowLink.getAttribute('href')).toMatch(/^http:\/\/localhost:8233\/namespaces\/default\/workflows\/cart-[A-Za-z0-9_-]+$/);
    await expectAccessible(operator, 'operator: a merchant and its carts');

    await operator.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Carts' }).click();
    await operator.waitForURL(/\/dashboard\/operator\/carts$/);
    await operator.getByLabel('Merchant').selectOption({ label: 'Dashboard <Store> (sandbox)' });
    await operator.getByLabel('Status').selectOption('paid');
    await operator.getByRole('button', { name: 'Search' }).click();
    await operator.waitForURL(/status=paid/);
    const found = operator.getByRole('region', { name: 'Carts table' }).getByRole('row', { name: new RegExp(paidCartId) });
    expect(await found.getByRole('link', { name: /Open in Temporal UI/ }).getAttribute('href')).toBe(
      `http://localhost:8233/namespaces/default/workflows/cart-${paidCartId}`,
    );
    await expectAccessible(operator, 'operator: carts found');
    await operator.getByLabel('Created from').fill('2030-01-31');
    await operator.getByLabel('Cart ID').fill('not a cart');
    await operator.getByRole('button', { name: 'Search' }).click();
    await operator.waitForURL(/cartId=not/);
    expect(await operator.locator('#search-cartId').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(operator, 'operator: a search with a bad cart ID');

    await page.reload();
    expect(await page.locator('[data-endpoint-status]').getAttribute('data-endpoint-status')).toBe('disabled');
    expect(await page.locator('#endpoint').textContent()).toContain('disabled by an operator');
  });

  it('sets a brand colour, says which colours the page will use and why, and refuses what is not a colour at the field', async () => {
    const page = await watch();
    await signIn(page, merchant.apiKey);
    await page.goto(`${stack.checkoutUrl}/dashboard/webhooks`);
    expect(await page.locator('#brand').textContent()).toContain('None set');
    await page.getByLabel('Colour (hex)').fill('yellow');
    await page.getByRole('button', { name: 'Save colour' }).click();
    await expect.poll(() => page.locator('#brandField-error').textContent()).toContain('Enter a hex colour such as #1557b0');
    await page.getByLabel('Colour (hex)').fill('#FFEB3B');
    await page.getByRole('button', { name: 'Save colour' }).click();
    const expected = brandPalette('#ffeb3b');
    await expect.poll(() => page.locator('#brand-explanation').textContent()).toContain(`darkens it to ${expected.accent}`);
    expect(await page.locator('#brand [data-colour="accent"]').textContent()).toBe(expected.accent);
    await expectAccessible(page, 'brand colour saved');
    await page.getByLabel('Colour (hex)').fill('');
    await page.getByRole('button', { name: 'Save colour' }).click();
    await expect.poll(() => page.locator('#brand').textContent()).toContain('None set');
  });

  it('turns saved cards off and on again: the page says which is set, and the merchant row follows', async () => {
    const page = await watch(375);
    await signIn(page, merchant.apiKey);
    await page.goto(`${stack.checkoutUrl}/dashboard/webhooks`);
    const section = page.locator('#savedCards');
    const allowed = async () =>
      (await stack.db<{ allowed: boolean }[]>`select saved_cards_allowed as allowed from merchants where platform_uuid = ${merchant.platformUuid}`)[0]!.allowed;
    expect(await section.textContent()).toContain('On: after the one-time code');
    expect(await allowed()).toBe(true);
    await page.getByRole('button', { name: 'Turn saved cards off' }).click();
    await expect.poll(() => section.textContent()).toContain('Off: your checkout neither offers saved cards');
    expect(await section.getByRole('status').textContent()).toContain('Saved.');
    expect(await allowed()).toBe(false);
    await expectAccessible(page, 'saved cards off');
    await page.getByRole('button', { name: 'Turn saved cards on' }).click();
    await expect.poll(() => section.textContent()).toContain('On: after the one-time code');
    expect(await allowed()).toBe(true);
  });

  it('the webhooks page fits 1280 and 375 px: each endpoint, a long unbroken URL included, and each delivery read in full with no sideways scroll', async () => {
    const shop = await stack.createMerchant({ name: 'Narrow <Shop>', webhookUrl: receiver.url });
    const driver = cartSessionDriver(stack, shop.platformUuid);
    const session = await driver.verifiedSession();
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
    await expect.poll(async () => (await stack.db`select 1 from webhook_events where cart_id = ${session.cartId}`).length).toBeGreaterThan(0);

    for (const width of [1280, 375]) {
      const page = await watch(width);
      await signIn(page, shop.apiKey);
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.waitForURL(/\/dashboard\/webhooks$/);
      await expectAccessible(page, `${width}: webhooks`);

      // A generated path is one unbroken run of characters, far wider than a phone: it must wrap.
      const longUrl = `${receiver.url}/hooks/${width}/${'0123456789abcdef'.repeat(8)}`;
      await page.getByLabel('New endpoint URL').fill(longUrl);
      await page.getByLabel('Description (optional)').fill('Accounting <team>');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect.poll(() => page.locator('#endpoints .notice').textContent()).toContain(longUrl);
      await expectAccessible(page, `${width}: webhooks, an endpoint added`);

      // Reflowed, not clipped: every row's values lie within the screen, and nothing scrolls inside a table's box either.
      const endpoints = page.getByRole('region', { name: 'Endpoints table' });
      const deliveries = page.getByRole('region', { name: 'Deliveries table' });
      expect(await endpoints.locator('tbody tr').count()).toBe(width === 1280 ? 2 : 3);
      expect(await endpoints.locator('tbody tr').last().locator('code').textContent()).toBe(longUrl);
      expect(await deliveries.locator('tbody tr').count()).toBeGreaterThan(0);
      const values = [
        ...(await endpoints.locator('tbody code, tbody .badge-status, tbody button').all()),
        ...(await deliveries.locator('tbody code, tbody a, tbody .badge-status, tbody button').all()),
      ];
      for (const value of values) {
        const box = await value.boundingBox();
        const what = `${width}: ${await value.textContent()}`;
        expect(box, what).not.toBeNull();
        expect(box!.x, what).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width, `${what} within the screen`).toBeLessThanOrEqual(width);
      }
      for (const table of [endpoints, deliveries]) expect(await table.evaluate((box) => box.scrollWidth - box.clientWidth)).toBe(0);
      // The desktop keeps its table; a phone gets cards, each value under its column's name.
      expect(
        await endpoints
          .locator('tbody tr')
          .first()
          .evaluate((row) => getComputedStyle(row).display),
      ).toBe(width === 1280 ? 'table-row' : 'block');
      expect(await endpoints.locator('tbody tr').last().locator('.cell-label', { hasText: 'URL' }).isVisible()).toBe(width === 375);
    }
  });

  // Sessions driven to every funnel step, then two viewports: 20 s alone, over the default 60 s with two test runs side by side.
  it(
    'shows a merchant and an operator insights whose funnel counts the sessions the page took to each step, at 1280 and 375 px, and exports the filtered orders as CSV',
    { timeout: 180_000 },
    async () => {
      const failing = await startWebhookReceiver(() => ({ status: 500, body: 'down for maintenance' }));
      try {
        const shop = await stack.createMerchant({ name: 'Insights <Shop>', webhookUrl: failing.url });
        const post = (path: string, cartId: string, at: Awaited<ReturnType<typeof visitCheckout>>, fields: Record<string, string> = {}) =>
          postCheckoutForm(stack.checkoutUrl, path, cartId, at, fields);
        const create = (extra: Record<string, string> = { orderRef: 'order-42' }) => {
          const body = validCartRequest(shop.platformUuid);
          body.cartObject.cart.extra = extra;
          return createCartId(stack.apiUrl, body);
        };
        /** A session the hosted page took as far as `step`, each step a form post a customer's browser sends. */
        async function sessionAt(step: 'created' | 'page_opened' | 'code_sent' | 'code_verified', extra?: Record<string, string>) {
          const cartId = await create(extra);
          if (step === 'created') return { cartId, at: undefined };
          const at = await visitCheckout(stack.checkoutUrl, cartId);
          if (step === 'page_opened') return { cartId, at };
          expect((await post('/contact', cartId, at, { contact: 'jane.doe@example.com' })).status).toBe(303);
          if (step === 'code_sent') return { cartId, at };
          expect((await post('/code', cartId, at, { code: stack.config.sandboxOtp })).status).toBe(303);
          return { cartId, at };
        }
        const pay = async (s: { cartId: string; at?: Awaited<ReturnType<typeof visitCheckout>> }, number: string) =>
          expect((await post('/card', s.cartId, s.at!, { number, expiry: '12/30', cvv: '123' })).status).toBe(303);
        const ledgerStatus = async (cartId: string) => (await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`)[0]?.status;

        await sessionAt('created');
        await sessionAt('page_opened');
        await sessionAt('code_sent');
        const cancelled = await sessionAt('code_sent');
        expect((await post('/cancel', cancelled.cartId, cancelled.at!)).status).toBe(303);
        await sessionAt('code_verified');
        const declined = await sessionAt('code_verified');
        await pay(declined, SANDBOX_CARDS.declined);
        const paid = await sessionAt('code_verified', { orderRef: '=HYPERLINK("http://evil.example")' });
        await pay(paid, SANDBOX_CARDS.approved);
        await expect.poll(() => ledgerStatus(declined.cartId)).toBe('failed');
        await expect.poll(() => ledgerStatus(paid.cartId)).toBe('paid');
        expect((await merchantApi(stack, shop.apiKey).refund(paid.cartId, { amount: 1000 })).status).toBe(201);
        await expect.poll(() => ledgerStatus(paid.cartId)).toBe('partially_refunded');
        // Every event of the shop went to an endpoint that answers 500: some attempts are in the ledger.
        await expect
          .poll(
            async () =>
              (
                await stack.db`select 1 from webhook_attempts a join webhook_events e on e.id = a.event_id where e.platform_uuid = ${shop.platformUuid} and a.http_status = 500`
              ).length,
          )
          .toBeGreaterThan(0);

        // created, page opened, code sent, code verified, pay attempted, paid
        const reached = { created: '7', page_opened: '6', code_sent: '5', code_verified: '3', pay_attempted: '2', paid: '1' };
        const stopped = {
          'created:open': '1',
          'page_opened:open': '1',
          'code_sent:open': '1',
          'code_sent:cancelled': '1',
          'code_verified:open': '1',
          'pay_attempted:failed': '1',
          'code_sent:abandoned': '0',
          'code_verified:failed': '0',
        };
        async function expectFunnel(page: Page) {
          for (const [step, count] of Object.entries(reached)) expect(await page.locator(`[data-reached="${step}"]`).textContent(), step).toBe(count);
          for (const [at, count] of Object.entries(stopped)) expect(await page.locator(`[data-stopped="${at}"]`).textContent(), at).toBe(count);
          expect(
            await page.getByRole('img', { name: /^Funnel: Created 7, Page opened 6, Code sent 5, Code verified 3, Pay attempted 2, Paid 1$/ }).count(),
          ).toBe(1);
        }

        for (const width of [1280, 375]) {
          const page = await watch(width);
          await signIn(page, shop.apiKey);
          await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Insights' }).click();
          await page.waitForURL(/\/dashboard\/insights$/);
          expect(await page.locator('[data-figure="sessions"]').textContent()).toBe('7');
          expect(await page.locator('[data-figure="paid"]').textContent()).toBe('1');
          expect(await page.locator('[data-figure="conversion"]').textContent()).toBe('14.3%');
          expect(await page.locator('[data-revenue="EUR"]').getAttribute('data-minor')).toBe('4498');
          expect(await page.locator('[data-refunds="EUR"]').textContent()).toBe('1');
          expect(await page.locator('[data-refunded="EUR"]').getAttribute('data-minor')).toBe('1000');
          await expectAccessible(page, `${width}: insights overview`);

          await page.getByRole('navigation', { name: 'Insights' }).getByRole('link', { name: 'Funnel' }).click();
          await page.waitForURL(/\/dashboard\/insights\/funnel\?days=7$/);
          await expectFunnel(page);
          await expectAccessible(page, `${width}: funnel`);
          await page.getByRole('navigation', { name: 'Period' }).getByRole('link', { name: 'Last 24 hours' }).click();
          await page.waitForURL(/days=1$/);
          await expect.poll(() => page.getByRole('link', { name: 'Last 24 hours' }).getAttribute('aria-current')).toBe('true');
          await expectFunnel(page);
          await expectAccessible(page, `${width}: funnel, last 24 hours`);

          await page.getByRole('navigation', { name: 'Insights' }).getByRole('link', { name: 'Webhook health' }).click();
          await page.waitForURL(/\/dashboard\/insights\/webhooks\?days=1$/);
          const endpoints = page.locator('[data-endpoint-key]');
          expect(await endpoints.count()).toBe(1);
          expect(await endpoints.getAttribute('data-success-rate')).toBe('0');
          expect(await endpoints.textContent()).toContain(failing.url);
          await expectAccessible(page, `${width}: webhook health`);

          const operator = await watch(width);
          await operator.goto(`${stack.checkoutUrl}/dashboard/sign-in/operator`);
          await operator.getByLabel('Operator token').fill(stack.config.operatorToken!);
          await operator.getByRole('button', { name: 'Sign in' }).click();
          await operator.waitForURL(/\/dashboard\/operator$/);
          await operator.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Insights' }).click();
          await operator.waitForURL(/\/dashboard\/operator\/insights$/);
          await expectAccessible(operator, `${width}: operator insights, every merchant`);
          await operator.getByRole('navigation', { name: 'Insights' }).getByRole('link', { name: 'Webhook health' }).click();
          await operator.waitForURL(/\/dashboard\/operator\/insights\/webhooks/);
          const rates = await operator.locator('[data-success-rate]').evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-success-rate'))));
          expect(rates, 'failing endpoints first').toEqual([...rates].sort((a, b) => a - b));
          expect(await operator.getByRole('row', { name: /Insights <Shop>/ }).count()).toBe(1);
          await expectAccessible(operator, `${width}: operator webhook health`);
          await operator.getByRole('navigation', { name: 'Insights' }).getByRole('link', { name: 'Funnel' }).click();
          await operator.waitForURL(/\/dashboard\/operator\/insights\/funnel\?days=7$/);
          await expectAccessible(operator, `${width}: operator funnel, every merchant`);
          await operator.getByLabel('Merchant', { exact: true }).selectOption({ label: 'Insights <Shop> (sandbox)' });
          await operator.getByRole('button', { name: 'Show' }).click();
          await operator.waitForURL(new RegExp(`/dashboard/operator/insights/funnel\\?days=7&merchant=${shop.platformUuid}$`));
          await expectFunnel(operator);
          await expectAccessible(operator, `${width}: operator funnel of one merchant`);
        }

        // The export carries the list's filters, and a formula the merchant's data starts with stays text.
        const page = await watch();
        await signIn(page, shop.apiKey);
        await page.getByLabel('Status').selectOption('partially_refunded');
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL(/status=partially_refunded/);
        const exportLink = page.getByRole('link', { name: 'Export these orders as CSV' });
        await expect.poll(() => exportLink.getAttribute('href')).toBe('/dashboard/orders/export.csv?status=partially_refunded');
        const csv = await page.request.get(`${stack.checkoutUrl}${await exportLink.getAttribute('href')}`);
        expect(csv.status()).toBe(200);
        expect(csv.headers()['content-type']).toBe('text/csv; charset=utf-8');
        expect(csv.headers()['content-disposition']).toMatch(/^attachment; filename="orders-sandbox-\d{4}-\d{2}-\d{2}\.csv"$/);
        const [row] = await stack.db<{ created_at: Date; created_with: string }[]>`select created_at, created_with from carts where cart_id = ${paid.cartId}`;
        // A cartId is URL-safe base64, so one in 64 starts with '-', which the export quotes like any formula-like cell.
        const cartIdCell = paid.cartId.startsWith('-') ? `'${paid.cartId}` : paid.cartId;
        expect((await csv.text()).split('\r\n')).toEqual([
          'cartId,createdAt,status,amount,refundedTotal,currency,cardBrand,cardLast4,createdWith,paymentLinkId,extra.orderRef',
          `${cartIdCell},${row!.created_at.toISOString()},partially_refunded,44.98,10.00,EUR,visa,1111,${row!.created_with},,"'=HYPERLINK(""http://evil.example"")"`,
          '',
        ]);
        const everything = await page.request.get(`${stack.checkoutUrl}/dashboard/orders/export.csv`);
        expect((await everything.text()).trim().split('\r\n')).toHaveLength(1 + 7);
        const refused = await page.request.get(`${stack.checkoutUrl}/dashboard/orders/export.csv?from=31-01-2030`);
        expect(refused.status()).toBe(422);
        expect(await refused.text()).toContain('from: Enter a date, such as 2030-01-31.');
      } finally {
        await failing.close();
      }
    },
  );
});
