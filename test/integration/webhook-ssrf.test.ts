import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
      expect(attempt).toEqual({ error_class: 'blocked_address', http_status: null });
    }
    expect(receiver.requests).toHaveLength(0);
  });
});
