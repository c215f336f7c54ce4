import { afterEach, describe, expect, it } from 'vitest';
import type { EventDeliveries } from '../../core/webhooks/event-history.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { cartEvents } from '../support/cart-events.js';
import { createCartId, postCart, validCartRequest } from '../support/fixtures.js';
import { operatorApi } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type Reply, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('operator API: register, rotate, inspect, replay, recover', () => {
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0,100,200', WEBHOOK_TIMEOUT_MS: '1000' });
  const operator = operatorApi(stack);
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  const receiver = async (reply?: () => Reply) => {
    const r = await startWebhookReceiver(reply);
    receivers.push(r);
    return r;
  };
  const register = async (webhookUrl: string) => {
    const res = await operator('POST', '/merchants', { name: 'Operator Store', webhookUrl });
    expect(res.status).toBe(201);
    return (await res.json()) as { platformUuid: string; webhookSecret: string; environment: string; webhookUrl: string };
  };
  const newCart = (platformUuid: string) => createCartId(stack.apiUrl, validCartRequest(platformUuid));
  const record = (cartId: string) =>
    cartEvents(stack).recordCartEvent({
      cartId,
      event: 'order_cancelled',
      status: 'cancelled',
    });
  const cartDeliveries = async (cartId: string) =>
    ((await (await operator('GET', `/carts/${cartId}/deliveries`)).json()) as { events: EventDeliveries[] }).events;

  it('refuses a missing or wrong token with 401 in the standard envelope', async () => {
    for (const token of [null, 'wrong-token-of-sufficient-length']) {
      const res = await operator('GET', '/merchants', undefined, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED', errors: [], requestId: expect.any(String) });
    }
  });

  it('registers a merchant, shows the secret once and stores it only encrypted', async () => {
    const hook = await receiver();
    const created = await register(hook.url);
    expect(created).toMatchObject({ platformUuid: expect.stringMatching(/^[0-9a-f-]{36}$/), environment: 'sandbox', webhookUrl: hook.url });
    expect(created.webhookSecret).toMatch(/^whsec_/);
    const list = (await (await operator('GET', '/merchants')).json()) as { merchants: Array<Record<string, unknown>> };
    const listed = list.merchants.find((m) => m.platformUuid === created.platformUuid);
    expect(listed).toMatchObject({ status: 'active', endpointStatus: 'enabled', webhookUrl: hook.url });
    expect(JSON.stringify(list)).not.toContain(created.webhookSecret);
    const dump = JSON.stringify(
      await stack.db`select * from webhook_secrets join webhook_endpoints on webhook_endpoints.id = endpoint_id where platform_uuid = ${created.platformUuid}`,
    );
    expect(dump).not.toContain(created.webhookSecret.slice(6));
    expect(dump).not.toContain(Buffer.from(created.webhookSecret.slice(6), 'base64').toString('hex'));
  });

  it('rejects a bad body and an unusable URL field by field', async () => {
    const res = await operator('POST', '/merchants', { name: '', webhookUrl: 'ftp://x', extra: 1 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path).sort()).toEqual(['extra', 'name']);
    const bad = await operator('POST', '/merchants', { name: 'X', webhookUrl: 'ftp://x' });
    expect(await bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'webhookUrl', message: 'must be an http or https URL' }] });
    expect((await operator('POST', '/merchants/00000000-0000-4000-8000-000000000000/rotate-secret')).status).toBe(404);
  });

  it('rotates the secret: during the overlap every delivery verifies with the old and with the new secret', async () => {
    const hook = await receiver();
    const merchant = await register(hook.url);
    const rotated = (await (await operator('POST', `/merchants/${merchant.platformUuid}/rotate-secret`)).json()) as {
      webhookSecret: string;
      previousSecretsExpireAt: string;
    };
    expect(rotated.webhookSecret).not.toBe(merchant.webhookSecret);
    const overlap = Date.parse(rotated.previousSecretsExpireAt) - Date.now();
    expect(overlap).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000);

    await record(await newCart(merchant.platformUuid));
    await waitFor(() => (hook.processed.size === 1 ? true : undefined), { what: 'a delivery' });
    const [delivery] = hook.requests;
    expect(delivery!.headers['webhook-signature']!.toString().split(' ')).toHaveLength(2);
    expect(verifyWebhook(delivery!.rawBody, delivery!.headers as Record<string, string>, merchant.webhookSecret).valid).toBe(true);
    expect(verifyWebhook(delivery!.rawBody, delivery!.headers as Record<string, string>, rotated.webhookSecret).valid).toBe(true);

    // Once the overlap is over, only the new secret signs.
    await stack.db`update webhook_secrets set expires_at = now() - interval '1 second' where expires_at is not null and endpoint_id = (select id from webhook_endpoints where platform_uuid = ${merchant.platformUuid})`;
    await record(await newCart(merchant.platformUuid));
    await waitFor(() => (hook.processed.size === 2 ? true : undefined), { what: 'a second delivery' });
    const later = hook.requests[1]!;
    expect(verifyWebhook(later.rawBody, later.headers as Record<string, string>, merchant.webhookSecret).valid).toBe(false);
    expect(verifyWebhook(later.rawBody, later.headers as Record<string, string>, rotated.webhookSecret).valid).toBe(true);
  });

  it('changes the webhook URL, lists deliveries by cart and by endpoint, and replays one event with the same id and a fresh signature', async () => {
    const first = await receiver();
    const second = await receiver();
    const merchant = await register(first.url);
    const changed = await operator('PUT', `/merchants/${merchant.platformUuid}/webhook-url`, { webhookUrl: second.url });
    expect(await changed.json()).toMatchObject({ webhookUrl: second.url, endpointStatus: 'enabled' });

    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record(cartId);
    await waitFor(() => (second.processed.size === 1 ? true : undefined), { what: 'delivery to the new URL' });
    expect(first.requests).toHaveLength(0);

    const replay = await operator('POST', `/events/${eventId}/replay`);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ eventId, cartId, deliveries: [{ endpointId: expect.stringMatching(/^[0-9a-f-]{36}$/), result: 'sent' }] });
    await waitFor(() => (second.requests.length === 2 ? true : undefined), { what: 'the replay' });
    const [original, replayed] = second.requests;
    expect(replayed!.headers['webhook-id']).toBe(eventId);
    expect(replayed!.rawBody).toBe(original!.rawBody);
    expect(verifyWebhook(replayed!.rawBody, replayed!.headers as Record<string, string>, merchant.webhookSecret).valid).toBe(true);

    const events = await waitFor(
      async () => {
        const list = await cartDeliveries(cartId);
        // An attempt is on record from before its request goes out; wait until both have their answer.
        return list[0]?.attempts.length === 2 && list[0].attempts.every((a) => a.httpStatus !== null) ? list : undefined;
      },
      { what: 'two completed attempts' },
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventId, status: 'delivered', event: 'order_cancelled', sequence: 1 });
    expect(events[0]!.attempts.map((a) => [a.trigger, a.httpStatus, a.url])).toEqual([
      ['scheduled', 200, second.url],
      ['replay', 200, second.url],
    ]);
    const byEndpoint = (await (await operator('GET', `/merchants/${merchant.platformUuid}/deliveries?status=delivered`)).json()) as {
      events: EventDeliveries[];
    };
    expect(byEndpoint.events.map((e) => e.eventId)).toEqual([eventId]);
    expect((await operator('POST', '/events/evt_nope/replay')).status).toBe(404);
  });

  it('recovers every failed or skipped event of an endpoint since a time, once the merchant is back', async () => {
    let up = false;
    const hook = await receiver(() => ({ status: up ? 200 : 500 }));
    const merchant = await register(hook.url);
    const since = new Date(Date.now() - 1000).toISOString();
    const failed = await record(await newCart(merchant.platformUuid));
    await waitFor(
      async () =>
        (await cartDeliveries((await stack.db`select cart_id from webhook_events where id = ${failed.eventId}`)[0]!.cart_id))[0]?.status === 'failed'
          ? true
          : undefined,
      { what: 'a failed event' },
    );
    await stack.db`update webhook_endpoints set status = 'disabled', disabled_reason = 'test' where platform_uuid = ${merchant.platformUuid}`;
    const skippedCart = await newCart(merchant.platformUuid);
    const skipped = await record(skippedCart);
    await waitFor(async () => ((await cartDeliveries(skippedCart))[0]?.status === 'skipped' ? true : undefined), { what: 'a skipped event' });

    up = true;
    const res = await operator('POST', `/merchants/${merchant.platformUuid}/recover`, { since });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { eventIds: string[] }).eventIds.sort()).toEqual([failed.eventId, skipped.eventId].sort());
    await waitFor(() => (hook.processed.size === 2 ? true : undefined), { what: 'both recovered' });
    // The receiver answers before the delivery activity records the outcome, so the ledger catches up a moment later.
    const events = await waitFor(
      async () => {
        const list = (await (await operator('GET', `/merchants/${merchant.platformUuid}/deliveries`)).json()) as { events: EventDeliveries[] };
        return list.events.every((e) => e.status === 'delivered') ? list.events : undefined;
      },
      { what: 'both recorded as delivered' },
    );
    expect(events.every((e) => e.attempts.at(-1)!.trigger === 'recover')).toBe(true);
    const [endpoint] = await stack.db`select status from webhook_endpoints where platform_uuid = ${merchant.platformUuid}`;
    expect(endpoint).toMatchObject({ status: 'enabled' });
  });

  it('deactivates a merchant: no new carts', async () => {
    const merchant = await register('http://localhost:9/webhooks');
    expect(await (await operator('POST', `/merchants/${merchant.platformUuid}/deactivate`)).json()).toMatchObject({ status: 'inactive' });
    const res = await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid));
    expect(res.status).toBe(422);
  });
  it('activates a deactivated merchant again: carts are taken again', async () => {
    const merchant = await register('http://localhost:9/webhooks');
    await operator('POST', `/merchants/${merchant.platformUuid}/deactivate`);
    expect(await (await operator('POST', `/merchants/${merchant.platformUuid}/activate`)).json()).toMatchObject({ status: 'active' });
    expect((await postCart(stack.apiUrl, validCartRequest(merchant.platformUuid))).status).toBe(200);
    expect((await operator('POST', '/merchants/00000000-0000-4000-8000-000000000000/activate')).status).toBe(404);
  });

  it('disables an endpoint: its events are kept as skipped; enabling it lets replays and new events through', async () => {
    const endpoint = await receiver();
    const merchant = await register(endpoint.url);
    const disabled = await operator('POST', `/merchants/${merchant.platformUuid}/disable-endpoint`);
    expect(await disabled.json()).toMatchObject({ endpointStatus: 'disabled', endpointDisabledReason: 'disabled by an operator' });
    const cartId = await newCart(merchant.platformUuid);
    const { eventId } = await record(cartId);
    await waitFor(async () => ((await cartDeliveries(cartId))[0]?.status === 'skipped' ? true : undefined), { what: 'the event skipped' });
    expect(endpoint.requests).toHaveLength(0);

    expect(await (await operator('POST', `/merchants/${merchant.platformUuid}/enable-endpoint`)).json()).toMatchObject({ endpointStatus: 'enabled' });
    await operator('POST', `/events/${eventId}/replay`);
    await waitFor(async () => ((await cartDeliveries(cartId))[0]?.status === 'delivered' ? true : undefined), { what: 'the replay delivered' });
    expect(endpoint.requests).toHaveLength(1);
  });
});
