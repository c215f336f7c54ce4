import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import type { Order } from '../../core/orders/order-schema.js';
import { merchantApi, paidCarts } from '../support/merchant-api.js';
import { operatorApi } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('operator decisions bind the merchant; test events and replays are limited per endpoint', () => {
  const stack = useTestStack({ TRUST_PROXY: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500', WEBHOOK_MANUAL_SENDS_PER_HOUR: '3' });
  const operator = operatorApi(stack);
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver?.close());

  const received = (eventId: string) => receiver.requests.filter((r) => r.headers['webhook-id'] === eventId).length;
  const endpointRow = async (platformUuid: string) =>
    (
      await stack.db<{ status: string; disabled_by_operator: boolean }[]>`
      select status, disabled_by_operator from webhook_endpoints where platform_uuid = ${platformUuid}`
    )[0];

  /** The order_created of two paid carts, both delivered. */
  async function deliveredEvents(merchant: CreatedMerchant): Promise<string[]> {
    const carts = paidCarts(stack, merchant);
    const cartIds = [await carts.paidCart(), await carts.paidCart()];
    return waitFor(
      async () => {
        const rows = await stack.db<{ id: string; delivery_status: string }[]>`
          select id, delivery_status from webhook_events where cart_id in ${stack.db(cartIds)} and event = 'order_created' order by created_at`;
        return rows.length === 2 && rows.every((r) => r.delivery_status === 'delivered') ? rows.map((r) => r.id) : undefined;
      },
      { what: 'both events delivered' },
    );
  }

  it('keeps an operator-disabled endpoint disabled when the merchant saves the same URL, and sends no replay to it', async () => {
    const merchant = await stack.createMerchant({ name: 'Disabled Store', webhookUrl: receiver.url });
    const [failing, created] = await deliveredEvents(merchant);
    expect((await operator('POST', `/merchants/${merchant.platformUuid}/disable-endpoint`)).status).toBe(200);

    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    await browser.get('/dashboard/webhooks');
    const saved = await browser.post('/dashboard/webhooks/url', { webhookUrl: receiver.url });
    expect(saved.status).toBe(200);
    expect(saved.body).toContain('Saved. The endpoint stays disabled until an operator enables it.');
    expect(await endpointRow(merchant.platformUuid)).toEqual({ status: 'disabled', disabled_by_operator: true });

    // The merchant's replay and test event are refused, saying why.
    const replay = await browser.post(`/dashboard/events/${created}/replay`);
    expect(replay.status).toBe(409);
    expect(replay.body).toContain('An operator disabled your endpoint');
    const test = await browser.post('/dashboard/webhooks/test');
    expect(test.status).toBe(409);

    // An operator's replay is not sent either: it is marked skipped (seen here on an event whose delivery
    // had failed, as a delivered one stays delivered), and the endpoint gets nothing.
    await stack.db`update webhook_events set delivery_status = 'failed' where id = ${failing!}`;
    await stack.db`update webhook_deliveries set status = 'failed' where event_id = ${failing!}`;
    expect((await operator('POST', `/events/${failing}/replay`)).status).toBe(200);
    const status = await waitFor(
      async () => {
        const [row] = await stack.db<{ delivery_status: string }[]>`select delivery_status from webhook_events where id = ${failing!}`;
        return row!.delivery_status === 'failed' ? undefined : row!.delivery_status;
      },
      { what: 'the replay dealt with' },
    );
    expect(status).toBe('skipped');
    expect(received(failing!)).toBe(1);

    // Only an operator enables it again; then replays go through.
    expect((await operator('POST', `/merchants/${merchant.platformUuid}/enable-endpoint`)).status).toBe(200);
    expect(await endpointRow(merchant.platformUuid)).toEqual({ status: 'enabled', disabled_by_operator: false });
    expect((await browser.post(`/dashboard/events/${created}/replay`)).status).toBe(200);
    await waitFor(() => (received(created!) === 2 ? true : undefined), { what: 'the replay after enabling' });
  });

  it('still lets the merchant re-enable an endpoint its own failures disabled, by saving its URL', async () => {
    const merchant = await stack.createMerchant({ name: 'Failing Store', webhookUrl: receiver.url });
    await stack.db`update webhook_endpoints set status = 'disabled', disabled_reason = 'the endpoint answered 410 Gone' where platform_uuid = ${merchant.platformUuid}`;
    const browser = dashboardClient(stack.checkoutUrl);
    await browser.signIn(merchant.apiKey);
    await browser.get('/dashboard/webhooks');
    const saved = await browser.post('/dashboard/webhooks/url', { webhookUrl: receiver.url });
    expect(saved.body).toContain('Saved. The endpoint is enabled.');
    expect(await endpointRow(merchant.platformUuid)).toEqual({ status: 'enabled', disabled_by_operator: false });
  });

  it('tells the merchant a refused webhook URL is refused without saying what our resolver answered; operators get the detail', async () => {
    const merchant = await stack.createMerchant({ name: 'Probing Store', webhookUrl: receiver.url });
    const browser = dashboardClient(stack.checkoutUrl);
    await browser.signIn(merchant.apiKey);
    await browser.get('/dashboard/webhooks');
    const refused = await browser.post('/dashboard/webhooks/url', { webhookUrl: 'http://10.1.2.3/hook' });
    expect(refused.status).toBe(422);
    const error = /<div class="field-error" id="webhookUrl-error">([\s\S]*?)<\/div>/.exec(refused.body)?.[1] ?? '';
    expect(error).toContain('The URL must resolve to public internet addresses or this machine');
    expect(error).not.toContain('10.1.2.3');

    const byOperator = await operator('PUT', `/merchants/${merchant.platformUuid}/webhook-url`, { webhookUrl: 'http://10.1.2.3/hook' });
    expect(byOperator.status).toBe(400);
    expect(JSON.stringify(await byOperator.json())).toContain('10.1.2.3');
  });

  it('limits test events and replays together per endpoint, and not another merchant’s', async () => {
    const merchant = await stack.createMerchant({ name: 'Busy Store', webhookUrl: receiver.url });
    const [, created] = await deliveredEvents(merchant);
    const browser = dashboardClient(stack.checkoutUrl);
    await browser.signIn(merchant.apiKey);
    await browser.get('/dashboard/webhooks');
    expect((await browser.post('/dashboard/webhooks/test')).status).toBe(200);
    expect((await browser.post('/dashboard/webhooks/test')).status).toBe(200);
    expect((await browser.post(`/dashboard/events/${created}/replay`)).status).toBe(200);
    await waitFor(() => (received(created!) === 2 ? true : undefined), { what: 'the accepted replay' });
    const before = receiver.requests.length;

    const refusedTest = await browser.post('/dashboard/webhooks/test');
    expect(refusedTest.status).toBe(429);
    expect(Number(refusedTest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refusedTest.body).toMatch(/Too many test events and replays: at most 3 an hour\. Try again in \d+ minutes?\./);
    expect((await browser.post(`/dashboard/events/${created}/replay`)).status).toBe(429);
    expect(receiver.requests.length).toBe(before);

    const other = await stack.createMerchant({ name: 'Quiet Store', webhookUrl: receiver.url });
    const otherBrowser = dashboardClient(stack.checkoutUrl);
    await otherBrowser.signIn(other.apiKey);
    await otherBrowser.get('/dashboard/webhooks');
    expect((await otherBrowser.post('/dashboard/webhooks/test')).status).toBe(200);
  });

  it('lets the merchant add an endpoint for some events (its secret shown once), refuse a bad one, and delete it, from the dashboard', async () => {
    const merchant = await stack.createMerchant({ name: 'Endpoints <Store>', webhookUrl: receiver.url });
    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    await browser.get('/dashboard/webhooks');
    const added = await browser.post('/dashboard/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/accounting',
      events: 'order_refunded',
      description: 'Books <refunds>',
    });
    expect(added.status).toBe(200);
    const [row] = await stack.db<{ id: string; enabled_events: string[]; description: string }[]>`
      select id, enabled_events, description from webhook_endpoints where platform_uuid = ${merchant.platformUuid} and url = 'http://127.0.0.1:9/accounting'`;
    expect(row).toMatchObject({ enabled_events: ['order_refunded'], description: 'Books <refunds>' });
    expect(added.body).toMatch(/shown this once:<\/p>\s*<p><code class="secret">whsec_[A-Za-z0-9+/=]+<\/code>/);
    // Merchant-supplied text is escaped.
    expect(added.body).toContain('Books &lt;refunds&gt;');
    expect((await browser.get('/dashboard/webhooks')).body).not.toContain('whsec_');

    const refused = await browser.post('/dashboard/webhooks/endpoints', { url: 'http://10.1.2.3/hook', events: 'order_refunded' });
    expect(refused.status).toBe(422);
    const noEvents = await browser.post('/dashboard/webhooks/endpoints', { url: 'http://127.0.0.1:9/other' });
    expect(noEvents.status).toBe(422);
    expect(noEvents.body).toContain('Events: must name at least one event');

    const deleted = await browser.post(`/dashboard/webhooks/endpoints/${row!.id}/delete`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toContain('Deleted: nothing more is sent to it.');
    expect((await stack.db`select 1 from webhook_endpoints where id = ${row!.id} and deleted_at is null`).length).toBe(0);
  });
  it('captures part of an authorized order from the dashboard, refusing more than was authorized, and voids another', async () => {
    const merchant = await stack.createMerchant({ name: 'Ship Later Dashboard', webhookUrl: receiver.url });
    const { driver } = paidCarts(stack, merchant);
    const authorizedCart = async () => {
      const session = await driver.verifiedSession({ captureMethod: 'manual' });
      expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('authorized');
      return session.cartId;
    };
    const toCapture = await authorizedCart();
    const toVoid = await authorizedCart();
    const order = async (cartId: string) => (await (await merchantApi(stack, merchant.apiKey).get(`/orders/${cartId}`)).json()) as Order;

    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    const page = await browser.get(`/dashboard/orders/${toCapture}`);
    expect(page.body).toContain(`action="/dashboard/orders/${toCapture}/capture"`);
    expect(page.body).toContain(`action="/dashboard/orders/${toCapture}/void"`);

    // validCartRequest's 44.98 EUR is authorized: more is refused beside the amount, and nothing is captured.
    const tooMuch = await browser.post(`/dashboard/orders/${toCapture}/capture`, { amount: '50' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatch(/id="capture-amount-error">At most [^<]*44\.98 was authorized on this order: enter that or less\./);
    expect((await order(toCapture)).status).toBe('authorized');

    const captured = await browser.post(`/dashboard/orders/${toCapture}/capture`, { amount: '30,00' });
    expect(captured.status).toBe(200);
    expect(captured.body).toContain('The capture is done: the order is paid.');
    expect(await order(toCapture)).toMatchObject({ status: 'paid', capturedAmount: 3000 });
    // Captured once: a capture of another amount (here all of it) is refused above the forms, saying what was captured.
    const again = await browser.post(`/dashboard/orders/${toCapture}/capture`, {});
    expect(again.status).toBe(422);
    expect(again.body).toMatch(/id="capture-form-error">This order’s capture is already decided: [^<]*30\.00 was captured\. An order is captured once\./);
    // The same capture again is answered as the first was.
    const same = await browser.post(`/dashboard/orders/${toCapture}/capture`, { amount: '30,00' });
    expect(same.status).toBe(200);
    expect(same.body).toContain('The capture is done: the order is paid.');

    await browser.get(`/dashboard/orders/${toVoid}`);
    const voided = await browser.post(`/dashboard/orders/${toVoid}/void`);
    expect(voided.status).toBe(200);
    expect(voided.body).toContain('data-order-status="cancelled"');
    expect((await order(toVoid)).status).toBe('cancelled');
  });
});
