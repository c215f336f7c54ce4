import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { CartEventInput, WebhookEventBody } from '../../core/webhooks/events.js';
import { waitForFirstDeliveryAttempt } from '../../core/webhooks/first-delivery.js';
import { RESPONSE_EXCERPT_BYTES } from '../../core/webhooks/http-post.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { cartEvents } from '../support/cart-events.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { webhookDeliveryWorkflowId } from '../../workflows/webhook-delivery/messages.js';
import { startWebhookReceiver, type Reply, type ReceivedRequest, type WebhookReceiver } from '../support/webhook-receiver.js';

// A compressed retry table: the same logic as production's 75 hours, in about a second.
const SCHEDULE = [0, 300, 500, 700];

interface AttemptRow {
  attempt: number;
  trigger: string;
  http_status: number | null;
  error_class: string | null;
  latency_ms: number;
  response_excerpt: string | null;
  attempted_at: Date;
  next_attempt_at: Date | null;
}

describe('webhook delivery against a real HTTP receiver', () => {
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','), WEBHOOK_TIMEOUT_MS: '1000' });
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  const events = () => cartEvents(stack);

  async function merchantWithReceiver(reply?: (request: ReceivedRequest, nth: number) => Reply) {
    const receiver = await startWebhookReceiver(reply);
    receivers.push(receiver);
    const merchant = await stack.createMerchant({ webhookUrl: receiver.url });
    return { receiver, merchant };
  }

  async function newCart(platformUuid: string, extra: Record<string, string> = { orderRef: 'order-42' }): Promise<string> {
    const request = validCartRequest(platformUuid);
    request.cartObject.cart.extra = extra;
    return createCartId(stack.apiUrl, request);
  }

  const record = (input: CartEventInput) => events().recordCartEvent(input);

  const attemptsOf = (eventId: string) =>
    stack.db<
      AttemptRow[]
    >`select attempt, trigger, http_status, error_class, latency_ms, response_excerpt, attempted_at, next_attempt_at from webhook_attempts where event_id = ${eventId} order by id`;
  const statusOf = async (eventId: string) =>
    (await stack.db<{ delivery_status: string }[]>`select delivery_status from webhook_events where id = ${eventId}`)[0]?.delivery_status;
  const waitForStatus = (eventId: string, status: string, timeoutMs = 15_000) =>
    waitFor(async () => ((await statusOf(eventId)) === status ? true : undefined), { what: `event ${eventId} ${status}`, timeoutMs });

  it('delivers every event kind, signed (ours and the standardwebhooks library agree) and with `extra` echoed exactly', async () => {
    const { receiver, merchant } = await merchantWithReceiver();
    const extra = { orderRef: 'order-ü-42', 'weird key': 'a "quoted" value, with <html> & emoji 🧾' };
    const paidCart = await newCart(merchant.platformUuid, extra);
    const cancelledCart = await newCart(merchant.platformUuid, extra);
    const abandonedCart = await newCart(merchant.platformUuid, extra);
    const failedCart = await newCart(merchant.platformUuid, extra);

    const recorded = [
      await record({ cartId: paidCart, event: 'order_updated', status: 'processing', payment: { brand: 'visa', last4: '1111' } }),
      await record({ cartId: paidCart, event: 'order_created', status: 'paid', payment: { brand: 'visa', last4: '1111' } }),
      await record({ cartId: paidCart, event: 'order_refunded', status: 'refunded', payment: { brand: 'visa', last4: '1111' } }),
      await record({ cartId: cancelledCart, event: 'order_cancelled', status: 'cancelled' }),
      await record({ cartId: abandonedCart, event: 'order_abandoned', status: 'abandoned' }),
      await record({ cartId: failedCart, event: 'order_updated', status: 'failed', payment: { brand: 'visa', last4: '0002', failureCode: 'card_declined' } }),
    ];
    await waitFor(() => (receiver.processed.size === recorded.length ? true : undefined), { what: 'all six deliveries' });

    const library = new Webhook(merchant.webhookSecret);
    const seen = new Map<string, WebhookEventBody>();
    for (const request of receiver.requests) {
      const verified = verifyWebhook(request.rawBody, request.headers, merchant.webhookSecret);
      expect(verified, JSON.stringify(verified)).toMatchObject({ valid: true });
      if (!verified.valid) continue;
      expect(library.verify(request.rawBody, request.headers as Record<string, string>)).toEqual(verified.event);
      expect(request.headers['x-client-signature']).toBe(request.headers['webhook-signature']);
      expect(request.headers['x-client-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(request.headers['x-client-event']).toBe(verified.event.event);
      expect(request.headers['x-client-delivery-attempt']).toBe('1');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^HostedCheckout-Webhooks\//);
      expect(request.headers['webhook-id']).toBe(verified.event.id);
      seen.set(verified.event.id, verified.event);
    }
    expect(receiver.requests).toHaveLength(recorded.length);

    const byKind = (cartId: string, event: string) => [...seen.values()].find((e) => e.data.cartId === cartId && e.event === event)!;
    for (const body of seen.values()) {
      expect(body.data.extra).toEqual(extra);
      expect(body).toMatchObject({ environment: 'sandbox', data: { amount: 4498, currency: 'EUR' } });
      expect(body.data.items).toHaveLength(2);
      expect(Date.parse(body.createdAt)).not.toBeNaN();
    }
    expect(byKind(paidCart, 'order_updated')).toMatchObject({ sequence: 1, data: { status: 'processing', payment: { brand: 'visa', last4: '1111' } } });
    expect(byKind(paidCart, 'order_created')).toMatchObject({ sequence: 2, data: { status: 'paid', payment: { brand: 'visa', last4: '1111' } } });
    expect(byKind(paidCart, 'order_refunded')).toMatchObject({ sequence: 3, data: { status: 'refunded' } });
    expect(byKind(cancelledCart, 'order_cancelled')).toMatchObject({ sequence: 1, data: { status: 'cancelled' } });
    expect(byKind(cancelledCart, 'order_cancelled').data.payment).toBeUndefined();
    expect(byKind(abandonedCart, 'order_abandoned')).toMatchObject({ data: { status: 'abandoned' } });
    expect(byKind(failedCart, 'order_updated')).toMatchObject({
      data: { status: 'failed', payment: { brand: 'visa', last4: '0002', failureCode: 'card_declined' } },
    });
    // The card never appears beyond brand and last 4.
    expect(receiver.requests.map((r) => r.rawBody).join('')).not.toMatch(/\d{12,}/);

    for (const { eventId } of recorded) {
      expect(await statusOf(eventId)).toBe('delivered');
      const [attempt] = await attemptsOf(eventId);
      expect(attempt).toMatchObject({ attempt: 1, trigger: 'scheduled', http_status: 200, error_class: null, next_attempt_at: null });
    }
  });

  it("delivers one cart's events in order even when the first one is slow", async () => {
    const { receiver, merchant } = await merchantWithReceiver((_, nth) => ({ status: 200, delayMs: nth === 1 ? 400 : 0 }));
    const cartId = await newCart(merchant.platformUuid);
    await record({ cartId, event: 'order_updated', status: 'processing', payment: { brand: 'visa', last4: '1111' } });
    await record({ cartId, event: 'order_created', status: 'paid', payment: { brand: 'visa', last4: '1111' } });
    await record({ cartId, event: 'order_refunded', status: 'partially_refunded', payment: { brand: 'visa', last4: '1111' } });
    await waitFor(() => (receiver.processed.size === 3 ? true : undefined), { what: 'three deliveries' });
    expect(receiver.requests.map((r) => (JSON.parse(r.rawBody) as WebhookEventBody).sequence)).toEqual([1, 2, 3]);
  });

  it('retries a receiver that fails the first attempts, on the schedule, until it answers 2xx; recording every attempt', async () => {
    const { receiver, merchant } = await merchantWithReceiver((_, nth) => (nth <= 2 ? { status: 500, body: `boom ${nth}` } : { status: 204 }));
    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record({ cartId, event: 'order_cancelled', status: 'cancelled' });
    await waitForStatus(eventId, 'delivered');

    expect(receiver.processed.size).toBe(1);
    expect(receiver.requests.map((r) => r.headers['x-client-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect(new Set(receiver.requests.map((r) => r.rawBody)).size).toBe(1);
    // Each attempt is signed afresh and still verifies.
    for (const r of receiver.requests) expect(verifyWebhook(r.rawBody, r.headers as Record<string, string>, merchant.webhookSecret).valid).toBe(true);

    const attempts = await attemptsOf(eventId);
    expect(attempts.map((a) => [a.attempt, a.http_status, a.error_class, a.response_excerpt])).toEqual([
      [1, 500, 'http_500', 'boom 1'],
      [2, 500, 'http_500', 'boom 2'],
      [3, 204, null, ''],
    ]);
    // The delays follow the table (±20 % jitter, plus scheduling overhead).
    const gap1 = attempts[1]!.attempted_at.getTime() - attempts[0]!.attempted_at.getTime();
    const gap2 = attempts[2]!.attempted_at.getTime() - attempts[1]!.attempted_at.getTime();
    expect(gap1).toBeGreaterThanOrEqual(SCHEDULE[1]! * 0.8 - 5);
    expect(gap2).toBeGreaterThanOrEqual(SCHEDULE[2]! * 0.8 - 5);
    const planned = attempts[0]!.next_attempt_at!.getTime() - attempts[0]!.attempted_at.getTime();
    expect(planned).toBeGreaterThanOrEqual(SCHEDULE[1]! * 0.8);
    expect(planned).toBeLessThanOrEqual(SCHEDULE[1]! * 1.2);
    expect(attempts[2]!.next_attempt_at).toBeNull();
  });

  it('counts a timeout as a failed attempt and delivers on the next one', async () => {
    const { receiver, merchant } = await merchantWithReceiver((_, nth) => (nth === 1 ? { status: 200, delayMs: 3000 } : { status: 200 }));
    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record({ cartId, event: 'order_abandoned', status: 'abandoned' });
    await waitForStatus(eventId, 'delivered');
    const attempts = await attemptsOf(eventId);
    expect(attempts.map((a) => [a.attempt, a.http_status, a.error_class])).toEqual([
      [1, null, 'timeout'],
      [2, 200, null],
    ]);
    expect(attempts[0]!.latency_ms).toBeGreaterThanOrEqual(1000);
    expect(attempts[0]!.latency_ms).toBeLessThan(2500);
    expect(receiver.processed.size).toBe(1);
  });

  it('keeps trying an endpoint that is down, and delivers exactly once when it comes back', async () => {
    const { receiver, merchant } = await merchantWithReceiver();
    const port = receiver.port;
    await receiver.close();
    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record({ cartId, event: 'order_cancelled', status: 'cancelled' });
    await waitFor(async () => ((await attemptsOf(eventId)).length >= 2 ? true : undefined), { what: 'two refused attempts' });
    const back = await startWebhookReceiver(undefined, port);
    receivers.push(back);
    await waitForStatus(eventId, 'delivered');
    const attempts = await attemptsOf(eventId);
    expect(attempts.slice(0, -1).every((a) => a.error_class === 'connection_refused' && a.http_status === null)).toBe(true);
    expect(attempts.at(-1)).toMatchObject({ http_status: 200 });
    expect(back.processed.size).toBe(1);
    expect(back.requests).toHaveLength(1);
  });

  it('marks an event failed (and keeps it) when the schedule is spent; redirects count as failures and are not followed', async () => {
    const { receiver, merchant } = await merchantWithReceiver(() => ({ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }));
    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record({ cartId, event: 'order_cancelled', status: 'cancelled' });
    await waitForStatus(eventId, 'failed');
    const attempts = await attemptsOf(eventId);
    expect(attempts.map((a) => a.http_status)).toEqual(SCHEDULE.map(() => 302));
    expect(attempts.at(-1)!.next_attempt_at).toBeNull();
    expect(receiver.requests).toHaveLength(SCHEDULE.length);
  });

  it('honours Retry-After to slow down, and reads at most 20 KB of an answer', async () => {
    const huge = 'x'.repeat(100 * 1024);
    const { merchant } = await merchantWithReceiver((_, nth) => (nth === 1 ? { status: 503, headers: { 'retry-after': '2' }, body: huge } : { status: 200 }));
    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record({ cartId, event: 'order_cancelled', status: 'cancelled' });
    await waitForStatus(eventId, 'delivered');
    const [first, second] = await attemptsOf(eventId);
    expect(first!.response_excerpt!.length).toBe(RESPONSE_EXCERPT_BYTES);
    expect(first!.next_attempt_at!.getTime() - first!.attempted_at.getTime()).toBeGreaterThanOrEqual(2000);
    expect(second!.attempted_at.getTime() - first!.attempted_at.getTime()).toBeGreaterThanOrEqual(1900);
  });

  it('disables the endpoint on 410 Gone and keeps later events as skipped, not dropped', async () => {
    const { receiver, merchant } = await merchantWithReceiver(() => ({ status: 410 }));
    const first = await record({ cartId: await newCart(merchant.platformUuid), event: 'order_cancelled', status: 'cancelled' });
    await waitForStatus(first.eventId, 'failed');
    const [endpoint] = await stack.db<
      { status: string; disabled_reason: string }[]
    >`select status, disabled_reason from webhook_endpoints where platform_uuid = ${merchant.platformUuid}`;
    expect(endpoint).toMatchObject({ status: 'disabled', disabled_reason: expect.stringContaining('410') });
    const later = await record({ cartId: await newCart(merchant.platformUuid), event: 'order_abandoned', status: 'abandoned' });
    await waitForStatus(later.eventId, 'skipped');
    expect(receiver.requests).toHaveLength(1);
    expect(await attemptsOf(later.eventId)).toHaveLength(0);
  });

  it('disables an endpoint that has failed continuously for 5 days; its next events are skipped', async () => {
    const { receiver, merchant } = await merchantWithReceiver(() => ({ status: 500 }));
    await stack.db`update webhook_endpoints set failing_since = now() - interval '5 days 1 minute' where platform_uuid = ${merchant.platformUuid}`;
    const first = await record({ cartId: await newCart(merchant.platformUuid), event: 'order_cancelled', status: 'cancelled' });
    await waitForStatus(first.eventId, 'failed');
    expect(await attemptsOf(first.eventId)).toHaveLength(1);
    const [endpoint] = await stack.db<
      { status: string; disabled_reason: string }[]
    >`select status, disabled_reason from webhook_endpoints where platform_uuid = ${merchant.platformUuid}`;
    expect(endpoint).toMatchObject({ status: 'disabled', disabled_reason: expect.stringContaining('every attempt failed since') });
    const later = await record({ cartId: await newCart(merchant.platformUuid), event: 'order_abandoned', status: 'abandoned' });
    await waitForStatus(later.eventId, 'skipped');
    expect(receiver.requests).toHaveLength(1);
  });

  it('waitForFirstDeliveryAttempt resolves once order_created was attempted, and gives up quietly when it is not', async () => {
    const { merchant } = await merchantWithReceiver(() => ({ status: 500 }));
    const cartId = await newCart(merchant.platformUuid);
    expect(await waitForFirstDeliveryAttempt(stack.db, cartId, 'order_created', 300)).toBe(false);
    await record({ cartId, event: 'order_created', status: 'paid', payment: { brand: 'visa', last4: '1111' } });
    const started = Date.now();
    expect(await waitForFirstDeliveryAttempt(stack.db, cartId, 'order_created', 3000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("ends a cart's delivery workflow once its last event is delivered, and keeps a paid order's waiting for refunds", async () => {
    const { merchant } = await merchantWithReceiver();
    const abandonedCart = await newCart(merchant.platformUuid);
    const failedCart = await newCart(merchant.platformUuid);
    const paidCart = await newCart(merchant.platformUuid);
    const abandoned = await record({ cartId: abandonedCart, event: 'order_abandoned', status: 'abandoned' });
    const processing = await record({ cartId: failedCart, event: 'order_updated', status: 'processing', payment: { brand: 'visa', last4: '0002' } });
    const failed = await record({
      cartId: failedCart,
      event: 'order_updated',
      status: 'failed',
      payment: { brand: 'visa', last4: '0002', failureCode: 'card_declined' },
    });
    const paid = await record({ cartId: paidCart, event: 'order_created', status: 'paid', payment: { brand: 'visa', last4: '1111' } });
    for (const { eventId } of [abandoned, processing, failed, paid]) await waitForStatus(eventId, 'delivered');

    const statusOfDelivery = async (cartId: string) =>
      (await stack.temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(cartId)).describe()).status.name;
    // Well inside the one-minute idle a paid order's workflow keeps.
    for (const cartId of [abandonedCart, failedCart]) {
      await waitFor(async () => ((await statusOfDelivery(cartId)) === 'COMPLETED' ? true : undefined), {
        what: `${cartId}'s deliveries ended`,
        timeoutMs: 10_000,
      });
    }
    expect(await statusOfDelivery(paidCart)).toBe('RUNNING');
  });
});
