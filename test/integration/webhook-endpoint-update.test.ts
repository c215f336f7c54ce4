import { describe, expect, it } from 'vitest';
import { useTestStack } from '../support/test-stack.js';

/** `PATCH /v2/merchant/webhook-endpoints/{id}` naming several fields: each applied, or none. */
describe('a webhook endpoint PATCH naming several fields', () => {
  const stack = useTestStack();

  /** A new merchant's API, with the id of its one endpoint. */
  async function merchantEndpoint() {
    const merchant = await stack.createMerchant({ webhookUrl: 'http://127.0.0.1:9/orders' });
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> & { data?: Array<Record<string, unknown>> } };
    };
    const id = (await api('GET', '')).json.data![0]!.id as string;
    return { id, patch: (body: unknown) => api('PATCH', `/${id}`, body), get: async () => (await api('GET', `/${id}`)).json };
  }

  it('applies a new url and status disabled together', async () => {
    const endpoint = await merchantEndpoint();
    const patched = await endpoint.patch({ url: 'http://127.0.0.1:9/moved', status: 'disabled' });
    expect(patched.status).toBe(200);
    const expected = { url: 'http://127.0.0.1:9/moved', status: 'disabled', disabledReason: 'disabled by the merchant' };
    expect(patched.json).toMatchObject(expected);
    expect(await endpoint.get()).toMatchObject(expected);
  });

  it('applies url, enabledEvents and status together, disabling and then enabling again', async () => {
    const endpoint = await merchantEndpoint();
    await endpoint.patch({ url: 'http://127.0.0.1:9/refunds', enabledEvents: ['order_refunded'], status: 'disabled' });
    expect(await endpoint.get()).toMatchObject({ url: 'http://127.0.0.1:9/refunds', enabledEvents: ['order_refunded'], status: 'disabled' });

    const body = { url: 'http://127.0.0.1:9/all', enabledEvents: ['order_created', 'order_updated'], description: 'Shop', status: 'enabled' };
    expect((await endpoint.patch(body)).status).toBe(200);
    expect(await endpoint.get()).toMatchObject({ ...body, disabledReason: null });
  });

  it('applies none of the fields when one is refused, naming it', async () => {
    const endpoint = await merchantEndpoint();
    const before = await endpoint.get();
    const refused = await endpoint.patch({ url: 'http://10.0.0.1/private', description: 'Shop', status: 'disabled' });
    expect(refused).toMatchObject({ status: 400, json: { code: 'VALIDATION_ERROR', errors: [{ path: 'url' }] } });
    expect(await endpoint.get()).toEqual(before);
  });
});
