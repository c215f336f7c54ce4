import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableEndpoint } from '../../core/merchants/merchant-store.js';
import { testEventBodySchema, WEBHOOK_TEST_EVENT } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { useTestStack } from '../support/test-stack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * `POST /v2/merchant/webhook-endpoints/{id}/test` (api/merchant/webhook-endpoint-routes.ts): the
 * dashboard's signed test event (core/webhooks/test-event.ts), by API, to the endpoint it names, with
 * its documented refusals.
 */
describe('the webhook test event by API', () => {
  const stack = useTestStack({ WEBHOOK_MANUAL_SENDS_PER_HOUR: '3' });
  let first: WebhookReceiver;
  let second: WebhookReceiver;
  beforeAll(async () => {
    first = await startWebhookReceiver();
    second = await startWebhookReceiver(() => ({ status: 500 }));
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  const call = (apiKey: string, method: string, path: string, body?: unknown) =>
    fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('sends the signed test event to the endpoint it names, and says what it answered', async () => {
    const merchant = await stack.createMerchant({ webhookUrl: first.url });
    const created = await call(merchant.apiKey, 'POST', '', { url: second.url, enabledEvents: ['order_created'] });
    const endpoint = (await created.json()) as { id: string; secret: string };

    const res = await call(merchant.apiKey, 'POST', `/${endpoint.id}/test`);
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toMatchObject({ url: second.url, delivered: false, status: 500 });
    const request = second.requests.find((r) => r.headers['webhook-id'] === answer.eventId);
    expect(request?.headers['x-client-event']).toBe(WEBHOOK_TEST_EVENT);
    const verified = verifyWebhook(request!.rawBody, request!.headers, endpoint.secret);
    expect(verified.valid).toBe(true);
    expect(testEventBodySchema.parse(JSON.parse(request!.rawBody)).data.message).toContain('/test');
    expect(first.requests.some((r) => r.headers['webhook-id'] === answer.eventId)).toBe(false);

    const [firstId] = (await (await call(merchant.apiKey, 'GET', '')).json()).data.map((e: { id: string }) => e.id);
    const ok = await (await call(merchant.apiKey, 'POST', `/${firstId}/test`)).json();
    expect(ok).toMatchObject({ url: first.url, delivered: true, status: 200 });
  });

  it('answers its documented refusals', async () => {
    const merchant = await stack.createMerchant({ webhookUrl: first.url });
    const other = await stack.createMerchant({ webhookUrl: first.url });
    const [id] = (await (await call(merchant.apiKey, 'GET', '')).json()).data.map((e: { id: string }) => e.id);

    expect((await call(merchant.apiKey, 'POST', '/not-a-uuid/test')).status).toBe(404);
    const foreign = await call(other.apiKey, 'POST', `/${id}/test`);
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).code).toBe('NOT_FOUND');
    expect((await call(merchant.apiKey, 'GET', `/${id}/test`)).status).toBe(405);
    expect((await fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints/${id}/test`, { method: 'POST' })).status).toBe(401);

    for (let i = 0; i < 3; i++) expect((await call(merchant.apiKey, 'POST', `/${id}/test`)).status).toBe(200);
    const limited = await call(merchant.apiKey, 'POST', `/${id}/test`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);

    const [otherId] = (await (await call(other.apiKey, 'GET', '')).json()).data.map((e: { id: string }) => e.id);
    await disableEndpoint(stack.db, otherId, 'operator test', { addresses: ['127.0.0.1'] });
    const bound = await call(other.apiKey, 'POST', `/${otherId}/test`);
    expect(bound.status).toBe(409);
    expect((await bound.json()).code).toBe('ENDPOINT_DISABLED_BY_OPERATOR');
  });
});
