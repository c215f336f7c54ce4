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
  // A local receiver answers in milliseconds, but a loaded CI machine once took over 1 s to complete an
  // attempt: 3 s keeps "the first attempt succeeds" true there, and the timeout test waits out 3 s.
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE.join(','), WEBHOOK_TIMEOUT_MS: '3000' });
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
    expect(byKind(cancelledCart, 'order_cancelled').data.payment).toBeNull();
    expect(byKind(abandonedCart, 'order_abandoned')).toMatchObject({ data: { status: 'abandoned' } });
    expect(byKind(failedCart, 'order_updated')).toMatchObject({
      data: { status: 'failed', payment: { brand: 'visa', last4: '0002' } },
    });
    // The card never appears beyond brand and last 4.
    expect(receiver.requests.map((r) => r.rawBody).join('')).not.toMatch(/\d{12,}/);

    for (const { eventId } of recorded) {
      // The receiver answers before the attempt's outcome is recorded: wait for it, on a loaded machine too.
      await waitForStatus(eventId, 'delivered');
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
      [1, 500, 'http_status', 'boom 1'],
      [2, 500, 'http_status', 'boom 2'],
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
    const { receiver, merchant } = await merchantWithReceiver((_, nth) => (nth === 1 ? { status: 200, delayMs: 6000 } : { status: 200 }));
    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record({ cartId, event: 'order_abandoned', status: 'abandoned' });
    await waitForStatus(eventId, 'delivered');
    const attempts = await attemptsOf(eventId);
    expect(attempts.map((a) => [a.attempt, a.http_status, a.error_class])).toEqual([
      [1, null, 'timeout'],
      [2, 200, null],
    ]);
    expect(attempts[0]!.latency_ms).toBeGreaterThanOrEqual(3000);
    expect(attempts[0]!.latency_ms).toBeLessThan(4500);
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

  /** The merchant API with this merchant's key. */
  const merchantApi = (merchant: { apiKey: string }) => async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.apiUrl}/v2/merchant${path}`, {
      method,
      headers: { authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (res.status === 204 ? null : await res.json()) as Record<string, unknown> & { data?: Array<Record<string, unknown>> } };
  };
  const firstEndpointId = async (api: ReturnType<typeof merchantApi>) => (await api('GET', '/webhook-endpoints')).json.data![0]!.id as string;
  const bodiesOf = (receiver: WebhookReceiver) => receiver.requests.map((r) => JSON.parse(r.rawBody) as WebhookEventBody);

  it('sends each endpoint only the events it subscribed to, in order, each signed with its own secret', async () => {
    const { receiver: orders, merchant } = await merchantWithReceiver();
    const accounting = await startWebhookReceiver();
    receivers.push(accounting);
    const api = merchantApi(merchant);
    const created = await api('POST', '/webhook-endpoints', { url: accounting.url, enabledEvents: ['order_refunded'], description: 'Accounting' });
    expect(created).toMatchObject({
      status: 201,
      json: { url: accounting.url, enabledEvents: ['order_refunded'], description: 'Accounting', status: 'enabled', secret: expect.stringMatching(/^whsec_/) },
    });
    const accountingSecret = created.json.secret as string;
    // The secret is shown once: never again in a read.
    expect((await api('GET', `/webhook-endpoints/${created.json.id as string}`)).json).not.toHaveProperty('secret');
    expect((await api('GET', '/webhook-endpoints')).json.data!.map((e) => e.enabledEvents)).toEqual([['*'], ['order_refunded']]);

    const cartId = await newCart(merchant.platformUuid);
    const payment = { brand: 'visa', last4: '1111' };
    await record({ cartId, event: 'order_updated', status: 'processing', payment });
    await record({ cartId, event: 'order_created', status: 'paid', payment });
    for (const [i, amount] of [1000, 500].entries())
      await record({
        cartId,
        event: 'order_refunded',
        status: 'partially_refunded',
        payment,
        refund: { id: `re_${i}`, amount, refundedTotal: 1000 + i * 500, reason: null },
      });
    await waitFor(() => (orders.processed.size === 4 && accounting.processed.size === 2 ? true : undefined), { what: 'four deliveries and two refunds' });

    expect(bodiesOf(orders).map((b) => [b.event, b.sequence])).toEqual([
      ['order_updated', 1],
      ['order_created', 2],
      ['order_refunded', 3],
      ['order_refunded', 4],
    ]);
    expect(bodiesOf(accounting).map((b) => [b.event, b.sequence, b.data.refund?.id])).toEqual([
      ['order_refunded', 3, 're_0'],
      ['order_refunded', 4, 're_1'],
    ]);
    // Over the raw bytes, as a merchant verifies: each endpoint's signature is by its own secret only.
    for (const [receiver, secret, other] of [
      [orders, merchant.webhookSecret, accountingSecret],
      [accounting, accountingSecret, merchant.webhookSecret],
    ] as const) {
      for (const request of receiver.requests) {
        const headers = request.headers as Record<string, string>;
        expect((new Webhook(secret).verify(request.rawBody, headers) as WebhookEventBody).id).toBe(headers['webhook-id']);
        expect(() => new Webhook(other).verify(request.rawBody, headers)).toThrow();
      }
    }
    expect(bodiesOf(accounting).map((b) => JSON.stringify(b))).toEqual(
      bodiesOf(orders)
        .slice(2)
        .map((b) => JSON.stringify(b)),
    );
  });

  it('keeps a failing endpoint from delaying another; delivered=false lists exactly what it missed, and a replay sends it', async () => {
    let failing = true;
    const { receiver: healthy, merchant } = await merchantWithReceiver();
    const broken = await startWebhookReceiver(() => (failing ? { status: 503 } : { status: 200 }));
    receivers.push(broken);
    const api = merchantApi(merchant);
    const brokenId = (await api('POST', '/webhook-endpoints', { url: broken.url, enabledEvents: ['order_updated', 'order_created'] })).json.id as string;
    const healthyId = await firstEndpointId(api);

    const cartId = await newCart(merchant.platformUuid);
    const payment = { brand: 'visa', last4: '1111' };
    const processing = await record({ cartId, event: 'order_updated', status: 'processing', payment });
    const paid = await record({ cartId, event: 'order_created', status: 'paid', payment });
    const refunded = await record({
      cartId,
      event: 'order_refunded',
      status: 'refunded',
      payment,
      refund: { id: 're_x', amount: 4498, refundedTotal: 4498, reason: null },
    });
    await waitFor(() => (healthy.processed.size === 3 ? true : undefined), { what: 'the healthy endpoint has all three', timeoutMs: 10_000 });
    // The healthy endpoint got everything while the broken one was still retrying its first event.
    expect(new Set(broken.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([processing.eventId]));

    // The merchant disables the broken endpoint: what is still waiting for it is skipped; the other is untouched.
    expect((await api('PATCH', `/webhook-endpoints/${brokenId}`, { status: 'disabled' })).json).toMatchObject({
      status: 'disabled',
      disabledReason: 'disabled by the merchant',
    });
    const otherCart = await newCart(merchant.platformUuid);
    const later = await record({ cartId: otherCart, event: 'order_created', status: 'paid', payment });
    await waitFor(() => (healthy.processed.has(later.eventId) ? true : undefined), { what: 'the later event at the healthy endpoint' });
    const deliveryOf = async (eventId: string, endpointId: string) =>
      (await stack.db<{ status: string }[]>`select status from webhook_deliveries where event_id = ${eventId} and endpoint_id = ${endpointId}`)[0]?.status;
    await waitFor(async () => ((await deliveryOf(later.eventId, brokenId)) === 'skipped' ? true : undefined), {
      what: 'the later event skipped at the broken endpoint',
    });
    for (const { eventId } of [processing, paid])
      await waitFor(async () => (['failed', 'skipped'].includes((await deliveryOf(eventId, brokenId)) ?? '') ? true : undefined), {
        what: `${eventId} given up at the broken endpoint`,
      });
    expect(broken.processed.size).toBe(0);

    const missed = async (endpointId: string) => {
      const res = await api('GET', `/events?delivered=false&endpointId=${endpointId}&limit=2`);
      expect(res.status).toBe(200);
      const page2 = res.json.nextCursor
        ? (await api('GET', `/events?delivered=false&endpointId=${endpointId}&cursor=${res.json.nextCursor as string}`)).json.data!
        : [];
      return [...res.json.data!, ...page2].map((e) => e.id);
    };
    // Exactly what it wanted and did not get, newest first: not the refund it never subscribed to.
    expect(await missed(brokenId)).toEqual([later.eventId, paid.eventId, processing.eventId]);
    expect(await missed(healthyId)).toEqual([]);
    const listed = (await api('GET', `/events?cartId=${cartId}&type=order_created`)).json.data!;
    expect(listed).toEqual([
      expect.objectContaining({
        id: paid.eventId,
        type: 'order_created',
        cartId,
        deliveries: [
          { endpointId: healthyId, status: 'delivered', deliveredAt: expect.any(String) },
          { endpointId: brokenId, status: expect.stringMatching(/^(failed|skipped)$/), deliveredAt: null },
        ],
      }),
    ]);
    expect((await api('GET', `/events?cartId=${cartId}&type=order_refunded`)).json.data![0]).toMatchObject({
      id: refunded.eventId,
      deliveries: [{ endpointId: healthyId, status: 'delivered' }],
    });

    // Back up and enabled again: the merchant replays what it missed, to that endpoint only.
    failing = false;
    expect((await api('PATCH', `/webhook-endpoints/${brokenId}`, { status: 'enabled' })).json).toMatchObject({ status: 'enabled', disabledReason: null });
    for (const eventId of [processing.eventId, paid.eventId, later.eventId])
      expect(await api('POST', `/events/${eventId}/replay`, { endpointId: brokenId })).toMatchObject({
        status: 200,
        json: { eventId, deliveries: [{ endpointId: brokenId }] },
      });
    await waitFor(() => (broken.processed.size === 3 ? true : undefined), { what: 'the replays at the recovered endpoint' });
    await waitFor(async () => ((await missed(brokenId)).length === 0 ? true : undefined), { what: 'nothing missed any more' });
    expect(healthy.requests).toHaveLength(4);
  });

  it('records an event no endpoint wants and never sends it', async () => {
    const { receiver, merchant } = await merchantWithReceiver();
    const api = merchantApi(merchant);
    const only = await firstEndpointId(api);
    expect((await api('PATCH', `/webhook-endpoints/${only}`, { enabledEvents: ['order_created', 'order_refunded'] })).json).toMatchObject({
      enabledEvents: ['order_created', 'order_refunded'],
    });
    const cartId = await newCart(merchant.platformUuid);
    const cancelled = await record({ cartId, event: 'order_cancelled', status: 'cancelled' });
    expect(await statusOf(cancelled.eventId)).toBe('unsubscribed');
    expect((await api('GET', `/events?cartId=${cartId}`)).json.data).toEqual([
      expect.objectContaining({ id: cancelled.eventId, type: 'order_cancelled', deliveries: [] }),
    ]);
    // Nothing was handed to delivery: no workflow was started for the cart.
    await expect(stack.temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(cartId)).describe()).rejects.toThrow(/not found/i);
    expect(receiver.requests).toHaveLength(0);
  });

  it('manages endpoints through the merchant API, refusing bad input in the documented envelope', async () => {
    const { merchant } = await merchantWithReceiver();
    const other = await stack.createMerchant();
    const api = merchantApi(merchant);
    const only = await firstEndpointId(api);

    const bad = await api('POST', '/webhook-endpoints', { url: 'ftp://x', enabledEvents: ['*', 'order_created'], extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((bad.json.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(expect.arrayContaining(['enabledEvents']));
    const unknownEvent = await api('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/x', enabledEvents: ['order_shipped'] });
    expect(unknownEvent.json).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'enabledEvents[0]', message: expect.stringContaining('order_created') }],
    });
    const badUrl = await api('POST', '/webhook-endpoints', { url: 'ftp://x', enabledEvents: ['*'] });
    expect(badUrl.json).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'url', message: 'must be an http or https URL' }] });
    expect((await api('PATCH', `/webhook-endpoints/${only}`, {})).json).toMatchObject({ code: 'VALIDATION_ERROR' });

    // Another merchant's endpoint is not found, never forbidden.
    const theirs = await firstEndpointId(merchantApi(other));
    for (const [method, body] of [['GET'], ['PATCH', { description: 'mine now' }], ['DELETE']] as const)
      expect(await api(method, `/webhook-endpoints/${theirs}`, body)).toMatchObject({ status: 404, json: { code: 'NOT_FOUND', errors: [{ path: 'id' }] } });
    expect(await api('DELETE', `/webhook-endpoints/${only}`)).toMatchObject({ status: 409, json: { code: 'LAST_ENDPOINT' } });

    const rotated = await api('POST', `/webhook-endpoints/${only}/rotate-secret`);
    expect(rotated.json).toMatchObject({ id: only, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.json.secret).not.toBe(merchant.webhookSecret);

    for (let n = 2; n <= 16; n++)
      expect((await api('POST', '/webhook-endpoints', { url: `http://127.0.0.1:9/hook-${n}`, enabledEvents: ['*'] })).status).toBe(201);
    expect(await api('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook-17', enabledEvents: ['*'] })).toMatchObject({
      status: 409,
      json: { code: 'ENDPOINT_LIMIT_REACHED' },
    });
    expect(await api('DELETE', `/webhook-endpoints/${only}`)).toMatchObject({ status: 204 });
    expect((await api('GET', '/webhook-endpoints')).json.data).toHaveLength(15);
    expect((await api('GET', `/webhook-endpoints/${only}`)).status).toBe(404);
  });
});
