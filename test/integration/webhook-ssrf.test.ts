import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendTestWebhook } from '../../core/webhooks/test-event.js';
import { cartEvents } from '../support/cart-events.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('production refuses webhooks aimed at our own network (SSRF)', () => {
  // Production workers must be given a real OTP sender and processor; these tests use neither.
  const unused = (): Promise<never> => Promise.reject(new Error('not used by these tests'));
  const stack = useTestStack(
    { CHECKOUT_ENV: 'production', WEBHOOK_RETRY_SCHEDULE_MS: '0', WEBHOOK_TIMEOUT_MS: '1000' },
    {
      otpSender: { name: 'unused', send: unused },
      paymentProcessor: { name: 'unused', charge: unused, lookup: unused, void: unused, capture: unused, refund: unused },
    },
  );
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const register = (webhookUrl: string) =>
    fetch(`${stack.apiUrl}/operator/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.config.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Prod Store', webhookUrl }),
    });

  it.each([
    ['plain http', 'http://shop.example/webhooks', 'must be https in production'],
    ['loopback literal', 'https://127.0.0.1/webhooks', 'non-public'],
    ['localhost', 'https://localhost/webhooks', 'non-public'],
    ['cloud metadata', 'https://169.254.169.254/latest/meta-data', 'non-public'],
    ['private network', 'https://10.0.0.8/webhooks', 'non-public'],
    ['CGNAT', 'https://100.64.1.1/webhooks', 'non-public'],
    ['IPv6 loopback', 'https://[::1]/webhooks', 'non-public'],
  ])('at registration: %s', async (_, url, message) => {
    const res = await register(url);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'webhookUrl', message: expect.stringContaining(message) }] });
  });

  it('at delivery: an endpoint whose host now resolves to loopback is never connected to', async () => {
    // As if the URL had passed registration and its DNS was re-pointed afterwards.
    const cases = [`https://localhost:${receiver.port}/webhooks`, `https://127.0.0.1:${receiver.port}/webhooks`, receiver.url];
    for (const webhookUrl of cases) {
      const merchant = await stack.createMerchant({ webhookUrl });
      const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
      const { eventId } = await cartEvents(stack).recordCartEvent({
        cartId,
        event: 'order_cancelled',
        status: 'cancelled',
      });
      const [attempt] = await waitFor(
        async () => {
          const rows = await stack.db<
            { error_class: string; http_status: number | null }[]
          >`select error_class, http_status from webhook_attempts where event_id = ${eventId} and error_class <> 'no_outcome'`;
          return rows.length ? rows : undefined;
        },
        { what: `the attempt to ${webhookUrl}` },
      );
      expect(attempt).toEqual({ error_class: 'unreachable_host', http_status: null });
    }
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('a deployed sandbox refuses webhooks aimed at its own loopback, as production does', () => {
  // Unset is off; said here because the test stack turns it on for every other sandbox test.
  const stack = useTestStack({ WEBHOOK_ALLOW_LOOPBACK: 'false', WEBHOOK_RETRY_SCHEDULE_MS: '0', WEBHOOK_TIMEOUT_MS: '1000' });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    // What a merchant would probe: a service on the worker's own machine that answers anything.
    receiver = await startWebhookReceiver(() => ({ status: 200, body: 'internal admin: ok' }));
  });
  afterAll(async () => {
    await receiver?.close();
  });
  const refusal = "must resolve to public internet addresses only (this deployment's webhooks may reach nothing else)";

  it('at registration, by an operator or by the merchant, naming no address', async () => {
    for (const webhookUrl of [
      receiver.url,
      `http://[::1]:${receiver.port}/webhooks`,
      `http://localhost:${receiver.port}/webhooks`,
      `http://admin.localhost/`,
    ]) {
      const res = await fetch(`${stack.apiUrl}/operator/merchants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.config.operatorToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Sandbox Store', webhookUrl }),
      });
      expect(res.status, webhookUrl).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'webhookUrl', message: expect.stringContaining('loopback') }] });
    }
    const merchant = await stack.createMerchant({ webhookUrl: 'https://store.example/webhooks' });
    const res = await fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, enabledEvents: ['*'] }),
    });
    expect(res.status).toBe(400);
    const body = JSON.stringify(await res.json());
    expect(body).toContain(refusal);
    expect(body).not.toContain('127.0.0.1');
  });

  it('at delivery and for a test event: a loopback endpoint is never connected to, and nothing of an answer is kept', async () => {
    // As if registered before the setting existed, or by a name that resolves to loopback.
    for (const webhookUrl of [receiver.url, `http://localhost:${receiver.port}/webhooks`]) {
      const merchant = await stack.createMerchant({ webhookUrl });
      const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
      const { eventId } = await cartEvents(stack).recordCartEvent({ cartId, event: 'order_cancelled', status: 'cancelled' });
      const [attempt] = await waitFor(
        async () => {
          const rows = await stack.db<{ error_class: string; http_status: number | null; response_excerpt: string | null }[]>`
            select error_class, http_status, response_excerpt from webhook_attempts where event_id = ${eventId} and error_class is distinct from 'no_outcome'`;
          return rows.length ? rows : undefined;
        },
        { what: `the attempt to ${webhookUrl}` },
      );
      expect(attempt, webhookUrl).toEqual({ error_class: 'unreachable_host', http_status: null, response_excerpt: null });
      const test = await sendTestWebhook(stack.db, stack.config, merchant.platformUuid);
      expect(test.outcome).toMatchObject({ errorClass: 'unreachable_host' });
      expect(test.outcome.status).toBeUndefined();
    }
    expect(receiver.requests).toHaveLength(0);
  });
});
