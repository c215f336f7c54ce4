import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { operatorApi } from '../support/operator.js';
import { paidCarts, type ErrorBody } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Security review, point 4: every manual send (test event or replay, from the dashboard or the merchant
 * API) counts against one limit, and a replay is one attempt, never put back on the retry schedule.
 * Issue 48, point 6: that limit is per merchant and target origin, not per endpoint id (a URL added
 * again as a new endpoint started a fresh count), and a replay honours the endpoint's event filter.
 * Against real HTTP receivers.
 */
describe('manual sends: one limit per merchant and origin, a replay is one attempt to an endpoint that takes the event', () => {
  // A short retry schedule: a replay put back on it would be retried within a second.
  const stack = useTestStack({ TRUST_PROXY: '1', WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500', WEBHOOK_MANUAL_SENDS_PER_HOUR: '3' });
  const operator = operatorApi(stack);
  let receiver: WebhookReceiver;
  /** Answers an event's first delivery 200, and every later request for it (a replay) 500. */
  let failing: WebhookReceiver;
  /** Another origin (its own port) than `receiver`'s. */
  let elsewhere: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    elsewhere = await startWebhookReceiver();
    failing = await startWebhookReceiver((request) => ({
      status: failing.requests.filter((r) => r.headers['webhook-id'] === request.headers['webhook-id']).length > 1 ? 500 : 200,
    }));
  });
  afterAll(() => Promise.all([receiver?.close(), failing?.close(), elsewhere?.close()]));

  const sentTo = (path: string, to = receiver) => `http://127.0.0.1:${to.port}${path}`;
  const received = (eventId: string, by = receiver) => by.requests.filter((r) => r.headers['webhook-id'] === eventId).length;

  function api(merchant: CreatedMerchant) {
    return async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.apiUrl}/v2/merchant${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    };
  }

  /** A merchant at `path` of the receiver, with one delivered order_created and its endpoint's id. */
  async function merchantWithEvent(path: string, to = receiver) {
    const merchant = await stack.createMerchant({ name: 'Replaying Store', webhookUrl: sentTo(path, to) });
    const call = api(merchant);
    const endpointId = ((await call('GET', '/webhook-endpoints')).json.data as Array<{ id: string }>)[0]!.id;
    const cartId = await paidCarts(stack, merchant).paidCart();
    const eventId = await waitFor(
      async () => {
        const [row] = await stack.db<{ id: string; delivery_status: string }[]>`
          select id, delivery_status from webhook_events where cart_id = ${cartId} and event = 'order_created'`;
        return row?.delivery_status === 'delivered' ? row.id : undefined;
      },
      { what: 'the order_created delivered' },
    );
    return { merchant, call, endpointId, eventId };
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

  it('limits the merchant API’s replays as the dashboard’s, together: 429 RATE_LIMITED with Retry-After', async () => {
    const { merchant, call, endpointId, eventId } = await merchantWithEvent('/limited');
    const replay = (id = endpointId) => call('POST', `/events/${eventId}/replay`, { endpointId: id });

    for (let i = 1; i <= 3; i++) {
      expect((await replay()).status).toBe(200);
      await waitFor(() => (received(eventId) === 1 + i ? true : undefined), { what: `replay ${i}` });
    }

    const refused = await replay();
    expect(refused.status).toBe(429);
    expect((refused.json as unknown as ErrorBody).code).toBe('RATE_LIMITED');
    expect((refused.json as unknown as ErrorBody).message).toContain('at most 3');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // The dashboard's test event and replay to the same endpoint count against the same limit.
    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    await browser.get('/dashboard/webhooks');
    const test = await browser.post('/dashboard/webhooks/test');
    expect(test.status).toBe(429);
    expect(Number(test.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await browser.post(`/dashboard/events/${eventId}/replay`)).status).toBe(429);
    await settle();
    expect(received(eventId)).toBe(4);

    // An endpoint at another origin (another port) has its own count.
    const other = await call('POST', '/webhook-endpoints', { url: sentTo('/limited-other', elsewhere), enabledEvents: ['*'] });
    expect(other.status).toBe(201);
    expect((await replay(other.json.id as string)).status).toBe(200);
    await waitFor(() => (received(eventId, elsewhere) === 1 ? true : undefined), { what: 'the replay to the other origin' });
  });

  it('counts per merchant and target origin: the same URL, or its origin, added again as a new endpoint is still refused', async () => {
    const { call, endpointId, eventId } = await merchantWithEvent('/readded');
    const replay = (id: string) => call('POST', `/events/${eventId}/replay`, { endpointId: id });
    for (let i = 1; i <= 3; i++) expect((await replay(endpointId)).status).toBe(200);
    expect((await replay(endpointId)).status).toBe(429);

    // The same URL as a new endpoint, the old one deleted: a new endpoint id, the same target.
    const again = await call('POST', '/webhook-endpoints', { url: sentTo('/readded'), enabledEvents: ['*'] });
    expect(again.status).toBe(201);
    expect((await call('DELETE', `/webhook-endpoints/${endpointId}`)).status).toBe(204);
    const refused = await replay(again.json.id as string);
    expect(refused.status).toBe(429);
    expect((refused.json as unknown as ErrorBody).code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // Another path, the scheme and host in upper case: the same origin once normalised, the same count.
    const spelled = await call('POST', '/webhook-endpoints', { url: `HTTP://127.0.0.1:${receiver.port}/Readded-Elsewhere`, enabledEvents: ['*'] });
    expect(spelled.status).toBe(201);
    expect((await replay(spelled.json.id as string)).status).toBe(429);
    await settle();
    expect(received(eventId)).toBe(4);
  });

  it('refuses by name a replay of an event the endpoint does not take: nothing is sent', async () => {
    const { call, eventId } = await merchantWithEvent('/orders');
    const accounting = await call('POST', '/webhook-endpoints', { url: sentTo('/accounting', elsewhere), enabledEvents: ['order_refunded'] });
    expect(accounting.status).toBe(201);
    const refused = await call('POST', `/events/${eventId}/replay`, { endpointId: accounting.json.id });
    expect(refused.status).toBe(422);
    const body = refused.json as unknown as ErrorBody;
    expect(body.code).toBe('EVENT_NOT_SUBSCRIBED');
    expect(body.message).toContain('order_created');
    expect(body.message).toContain('order_refunded');
    expect(body.errors).toEqual([{ path: 'endpointId', message: expect.stringContaining('order_refunded') as string }]);
    expect(typeof body.requestId).toBe('string');
    await settle();
    expect(elsewhere.requests.filter((r) => r.rawBody.includes(eventId))).toEqual([]);
  });

  it('holds a replay to the filter as it is now, from the dashboard and by an operator alike', async () => {
    const { merchant, call, endpointId, eventId } = await merchantWithEvent('/narrowed');
    // The event was recorded for this endpoint; since then it takes refunds only.
    expect((await call('PATCH', `/webhook-endpoints/${endpointId}`, { enabledEvents: ['order_refunded'] })).status).toBe(200);

    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    await browser.get('/dashboard/webhooks');
    const fromDashboard = await browser.post(`/dashboard/events/${eventId}/replay`);
    expect(fromDashboard.status).toBe(422);
    expect(fromDashboard.body).toContain('Not sent: this endpoint takes order_refunded, not order_created.');

    const byOperator = await operator('POST', `/events/${eventId}/replay`, { endpointId });
    expect(byOperator.status).toBe(422);
    expect(((await byOperator.json()) as ErrorBody).code).toBe('EVENT_NOT_SUBSCRIBED');
    await settle();
    expect(received(eventId)).toBe(1);
  });

  it('counts dashboard test events against the endpoint the merchant API replays to', async () => {
    const { merchant, call, endpointId, eventId } = await merchantWithEvent('/shared');
    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    await browser.get('/dashboard/webhooks');
    expect((await browser.post('/dashboard/webhooks/test')).status).toBe(200);
    expect((await browser.post('/dashboard/webhooks/test')).status).toBe(200);
    expect((await call('POST', `/events/${eventId}/replay`, { endpointId })).status).toBe(200);
    const refused = await call('POST', `/events/${eventId}/replay`, { endpointId });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('sends a failing replay once: never put back on the retry schedule', async () => {
    const { call, endpointId, eventId } = await merchantWithEvent('/failing', failing);
    expect((await call('POST', `/events/${eventId}/replay`, { endpointId })).status).toBe(200);
    await waitFor(() => (received(eventId, failing) >= 2 ? true : undefined), { what: 'the replay' });
    await settle();
    expect(received(eventId, failing)).toBe(2);
    const attempts = await stack.db<{ http_status: number; next_attempt_at: Date | null }[]>`
      select http_status, next_attempt_at from webhook_attempts where event_id = ${eventId} and trigger = 'replay' order by id`;
    expect(attempts).toEqual([{ http_status: 500, next_attempt_at: null }]);
  });
});
