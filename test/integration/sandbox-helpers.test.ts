import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { SANDBOX_HELPER_CONTACT } from '../../api/sandbox/complete-cart.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The sandbox helpers (api/sandbox/, docs/api.md "Sandbox helpers") on the real stack: a cart the
 * helper completes gives the events a customer on the page gives, field for field; the page serves a
 * helper's cart to no browser and the helper drives no cart a browser started; production has none of
 * it; and `advance` fires the session's timer inside its workflow.
 */
describe('sandbox helpers', () => {
  const stack = useTestStack({ SANDBOX_OTP: '999999' });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  const sandboxPost = (apiKey: string, cartId: string, helper: string, body: unknown) =>
    fetch(`${stack.apiUrl}/v2/sandbox/carts/${cartId}/${helper}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /**
   * The webhooks the merchant's endpoint received for the cart once its session is final and all its
   * recorded events arrived, in order, with what differs between two carts (ids, times, references) named instead.
   */
  async function eventsOf(cartId: string): Promise<unknown[]> {
    const recorded = await waitFor(
      async () => {
        const [row] = await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`;
        if (!row || ['pending', 'processing'].includes(row.status)) return undefined;
        return (await stack.db`select 1 from webhook_events where cart_id = ${cartId}`).length;
      },
      { timeoutMs: 60_000, what: `cart ${cartId} final` },
    );
    const received = await waitFor(
      () => {
        const bodies = receiver.requests
          .map((r) => JSON.parse(r.rawBody) as { id: string; sequence: number; data: { cartId: string } })
          .filter((b) => b.data.cartId === cartId);
        const once = [...new Map(bodies.map((b) => [b.id, b])).values()].sort((a, b) => a.sequence - b.sequence);
        return once.length === recorded ? once : undefined;
      },
      { timeoutMs: 30_000, what: `the ${recorded} webhooks of ${cartId}` },
    );
    const text = JSON.stringify(received)
      .replaceAll(cartId, '<cartId>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
      .replace(/"(evt_|pi_sbx_|ch_sbx_)[A-Za-z0-9_-]+"/g, '"<$1id>"');
    return JSON.parse(text) as unknown[];
  }

  /** The same outcome walked by a customer on the hosted page's forms (test/support/checkout-forms.ts). */
  async function payOnPage(cartId: string, number: string) {
    const visit = await visitCheckout(stack.checkoutUrl, cartId);
    const post = (path: string, fields: Record<string, string>) => postCheckoutForm(stack.checkoutUrl, path, cartId, visit, fields);
    expect((await post('/contact', { contact: SANDBOX_HELPER_CONTACT })).status).toBe(303);
    expect((await post('/code', { code: stack.config.sandboxOtp })).status).toBe(303);
    expect((await post('/card', { number, expiry: '12/30', cvv: '123' })).status).toBe(303);
  }

  for (const [outcome, number] of [
    ['approved', '4111 1111 1111 1111'],
    ['declined', '4000 0000 0000 0002'],
  ] as const) {
    it(`complete ${outcome} gives the events the page gives, field for field`, async () => {
      const merchant = await stack.createMerchant({ webhookUrl: receiver.url });
      const request = validCartRequest(merchant.platformUuid);
      const [byHelper, byPage] = [await createCartId(stack.apiUrl, request), await createCartId(stack.apiUrl, request)];

      const res = await sandboxPost(merchant.apiKey, byHelper, 'complete', { outcome });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ cartId: byHelper, status: outcome === 'approved' ? 'paid' : 'failed' });
      await payOnPage(byPage, number);

      const [helperEvents, pageEvents] = [await eventsOf(byHelper), await eventsOf(byPage)];
      expect(helperEvents.length).toBeGreaterThan(0);
      expect(helperEvents).toEqual(pageEvents);
    });
  }

  it('completes a 3-D Secure challenge passed, and a manual-capture cart as the cart says', async () => {
    const merchant = await stack.createMerchant();
    const challenged = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const passed = await sandboxPost(merchant.apiKey, challenged, 'complete', { outcome: 'challenge_passed' });
    expect(await passed.json()).toEqual({ cartId: challenged, status: 'paid' });

    const request = validCartRequest(merchant.platformUuid);
    request.cartObject.cart.captureMethod = 'manual';
    const manual = await createCartId(stack.apiUrl, request);
    const wrong = await sandboxPost(merchant.apiKey, manual, 'complete', { outcome: 'approved', captureMethod: 'automatic' });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).errors).toEqual([{ path: 'captureMethod', message: 'must be "manual", as the cart says, or absent' }]);
    const authorized = await sandboxPost(merchant.apiKey, manual, 'complete', { outcome: 'approved', captureMethod: 'manual' });
    expect(await authorized.json()).toEqual({ cartId: manual, status: 'authorized' });

    // The hold's timer, fired now: voided and cancelled with authorization_expired.
    const expired = await sandboxPost(merchant.apiKey, manual, 'advance', { to: 'authorization_expired' });
    expect(await expired.json()).toEqual({ cartId: manual, status: 'cancelled', failureCode: 'authorization_expired' });
  });

  it('drives only carts no browser started, and the page serves its carts to no browser', async () => {
    const merchant = await stack.createMerchant();
    const started = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const visit = await visitCheckout(stack.checkoutUrl, started);
    expect((await postCheckoutForm(stack.checkoutUrl, '/contact', started, visit, { contact: 'jane@example.com' })).status).toBe(303);
    const refused = await sandboxPost(merchant.apiKey, started, 'complete', { outcome: 'approved' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('SESSION_IN_BROWSER');

    const driven = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const opened = await visitCheckout(stack.checkoutUrl, driven);
    expect((await sandboxPost(merchant.apiKey, driven, 'complete', { outcome: 'declined' })).status).toBe(200);
    expect((await fetch(`${stack.checkoutUrl}/?token=${driven}`)).status).toBe(404);
    // A page opened before the helper claimed the cart cannot act for it either.
    expect((await postCheckoutForm(stack.checkoutUrl, '/contact', driven, opened, { contact: 'jane@example.com' })).status).toBe(404);

    const other = await stack.createMerchant();
    const foreign = await sandboxPost(other.apiKey, driven, 'complete', { outcome: 'approved' });
    expect(foreign.status).toBe(404);
  });

  it('a production deployment answers 404 to the sandbox helpers', async () => {
    const merchant = await stack.createMerchant();
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const production = createApiApp({ config: { ...stack.config, environment: 'production' }, db: stack.db, temporal: stack.temporal, logger: stack.logger });
    for (const helper of ['complete', 'advance']) {
      const res = await production.request(`/v2/sandbox/carts/${cartId}/${helper}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(helper === 'complete' ? { outcome: 'approved' } : { to: 'expired' }),
      });
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe('NOT_FOUND');
    }
    expect((await sandboxPost(merchant.apiKey, cartId, 'advance', { to: 'bogus' })).status).toBe(400);
  });

  it('advance to expired gives order_abandoned within seconds, through the workflow history', async () => {
    const merchant = await stack.createMerchant();
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const handle = stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId));
    // The session's timer running first, as it is for any customer: an advance that reaches the session's
    // first workflow task finds no timer to cancel, and the history would show none.
    await expect.poll(async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes), { timeout: 10_000 }).toBe(true);
    const started = performance.now();
    const res = await sandboxPost(merchant.apiKey, cartId, 'advance', { to: 'expired' });
    expect(await res.json()).toEqual({ cartId, status: 'abandoned' });
    const [event] = await stack.db<{ event: string }[]>`select event from webhook_events where cart_id = ${cartId} order by sequence desc limit 1`;
    const seconds = (performance.now() - started) / 1000;
    expect(event?.event).toBe('order_abandoned');
    expect(seconds).toBeLessThan(10);

    const history = await handle.fetchHistory();
    const lines = (history.events ?? []).map((e) => {
      const type = temporal.api.enums.v1.EventType[e.eventType ?? 0]!.replace('EVENT_TYPE_', '');
      const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
      return `${String(e.eventId)} ${type}${update ? ` (${update})` : ''}`;
    });
    console.log(`advance → expired: order_abandoned after ${seconds.toFixed(2)} s; workflow history of cart-${cartId}:\n  ${lines.join('\n  ')}`);
    expect(lines.some((l) => l.includes('WORKFLOW_EXECUTION_UPDATE_ACCEPTED (advanceClock)'))).toBe(true);
    expect(lines.some((l) => l.includes('TIMER_CANCELED'))).toBe(true);
    // The same advance again is the same update, answered as before; a timer the session does not run is refused.
    expect(await (await sandboxPost(merchant.apiKey, cartId, 'advance', { to: 'expired' })).json()).toEqual({ cartId, status: 'abandoned' });
    const refused = await sandboxPost(merchant.apiKey, cartId, 'advance', { to: 'authorization_expired' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('NOTHING_TO_ADVANCE');
  });
});
