import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { paidCarts, type ErrorBody } from '../support/merchant-api.js';
import { operatorApi } from '../support/operator.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Security review, point 3: an operator's disable of an endpoint binds the merchant. Its URL (same
 * origin and path) is not added again, nor the endpoint deleted, re-enabled, moved or its reason
 * overwritten, through the API or the dashboard; only the operator's enable lifts it.
 */
describe('an endpoint an operator disabled binds the merchant', () => {
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0,300,500', TRUST_PROXY: '1' });
  const operator = operatorApi(stack);
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver?.close());

  function endpointsApi(merchant: CreatedMerchant) {
    return async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.apiUrl}/v2/merchant/webhook-endpoints${path}`, {
        method,
        headers: { authorization: `Bearer ${merchant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    };
  }

  /** A merchant whose first endpoint (at `url`) an operator disabled, and a second endpoint of its own elsewhere. */
  async function boundMerchant(url: string) {
    const merchant = await stack.createMerchant({ name: 'Bound Store', webhookUrl: url });
    const api = endpointsApi(merchant);
    const disabledId = ((await api('GET', '')).json.data as Array<{ id: string }>)[0]!.id;
    const other = await api('POST', '', { url: 'http://127.0.0.1:9/elsewhere', enabledEvents: ['order_refunded'] });
    expect(other.status).toBe(201);
    const disabled = await operator('POST', `/merchants/${merchant.platformUuid}/disable-endpoint`, { endpointId: disabledId });
    expect(disabled.status).toBe(200);
    return { merchant, api, disabledId, otherId: other.json.id as string };
  }

  const expectRefusal = (res: { status: number; json: Record<string, unknown> }) => {
    expect(res.status).toBe(409);
    const body = res.json as unknown as ErrorBody;
    expect(body.code).toBe('ENDPOINT_DISABLED_BY_OPERATOR');
    expect(body.message).toContain('An operator disabled');
    expect(typeof body.requestId).toBe('string');
  };

  const endpointRow = async (id: string) =>
    (
      await stack.db<{ url: string; status: string; disabled_reason: string; disabled_by_operator: boolean; deleted: boolean }[]>`
        select url, status, disabled_reason, disabled_by_operator, deleted_at is not null as deleted from webhook_endpoints where id = ${id}`
    )[0];

  it('refuses the same URL (same origin and path) as a new endpoint, and sends the next order_created nowhere near it', async () => {
    const { merchant, api } = await boundMerchant(receiver.url);
    const { port } = receiver;
    for (const url of [
      receiver.url,
      `http://127.0.0.1:${port}/webhooks?again=1`,
      `http://127.0.0.1:${port}/webhooks/`,
      `HTTP://127.0.0.1:${port}//webhooks//`,
    ]) {
      expectRefusal(await api('POST', '', { url, enabledEvents: ['*'] }));
    }
    // Another path of the same origin is another endpoint.
    expect((await api('POST', '', { url: `http://127.0.0.1:${port}/other`, enabledEvents: ['order_refunded'] })).status).toBe(201);
    const live = (await api('GET', '')).json.data as Array<{ url: string }>;
    expect(live.filter((e) => e.url.includes('/webhooks'))).toHaveLength(1);

    await expectOrderCreatedNotReceived(merchant);
  });

  it('refuses every other spelling or name of the receiver it disabled, as a new endpoint or a moved one, and sends it nothing', async () => {
    const { port } = receiver;
    const { merchant, api, otherId } = await boundMerchant(`http://127.0.0.1:${port}/hook`);
    const aliases = [
      `http://localhost:${port}/hook`,
      `http://127.0.0.1:${port}/h%6Fok`,
      `http://127.0.0.1:${port}/hook;x`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://127.0.0.1.:${port}/hook`,
      `http://localhost.:${port}/hook`,
      `http://127.0.0.1:${port}/x/../hook/.`,
    ];
    const answers = [];
    for (const url of aliases)
      answers.push({ url, added: await api('POST', '', { url, enabledEvents: ['*'] }), moved: await api('PATCH', `/${otherId}`, { url }) });
    // Every answer at once: one failure shows which spellings got through.
    expect(answers.map(({ url, added, moved }) => ({ url, added: added.status, moved: moved.status }))).toEqual(
      aliases.map((url) => ({ url, added: 409, moved: 409 })),
    );
    for (const { added, moved } of answers) {
      expectRefusal(added);
      expectRefusal(moved);
      expect((added.json as unknown as ErrorBody).errors).toEqual([{ path: 'url', message: expect.stringContaining('an operator disabled') }]);
    }
    // The same receiver's other paths are other endpoints, as before.
    expect((await api('POST', '', { url: `http://localhost:${port}/other`, enabledEvents: ['order_refunded'] })).status).toBe(201);
    await expectOrderCreatedNotReceived(merchant);
  });

  it('holds the addresses a disabled name resolved to then: its address, spelt any way, is refused too', async () => {
    const { port } = receiver;
    const { merchant, api, disabledId } = await boundMerchant(`http://localhost:${port}/by-name`);
    for (const url of [`http://127.0.0.1:${port}/by-name`, `http://[::ffff:7f00:1]:${port}/by-name`, `http://LOCALHOST.:${port}/by-name;v=2`]) {
      const added = await api('POST', '', { url, enabledEvents: ['*'] });
      expect(added.status, url).toBe(409);
      expectRefusal(added);
    }
    // What it was bound by: the address localhost resolved to when the operator disabled it.
    const [stored] = await stack.db<{ disabled_addresses: string[] }[]>`select disabled_addresses from webhook_endpoints where id = ${disabledId}`;
    expect(stored!.disabled_addresses).toContain('127.0.0.1');
    await expectOrderCreatedNotReceived(merchant);
  });

  /** The merchant's next order_created is dealt with at every endpoint, and the receiver never sees it. */
  async function expectOrderCreatedNotReceived(merchant: CreatedMerchant) {
    const cartId = await paidCarts(stack, merchant).paidCart();
    const [event] = await waitFor(
      async () => {
        const rows = await stack.db<{ id: string }[]>`select id from webhook_events where cart_id = ${cartId} and event = 'order_created'`;
        return rows.length ? rows : undefined;
      },
      { what: 'the order_created recorded' },
    );
    await waitFor(
      async () => {
        const rows = await stack.db<{ status: string }[]>`select status from webhook_deliveries where event_id = ${event!.id}`;
        return rows.length > 0 && rows.every((r) => r.status !== 'pending') ? true : undefined;
      },
      { what: 'the order_created dealt with' },
    );
    expect(receiver.requests.filter((r) => r.headers['webhook-id'] === event!.id)).toHaveLength(0);
  }

  it('refuses the merchant’s DELETE, re-enable, disable and move of the endpoint, keeping the operator’s reason', async () => {
    const { api, disabledId } = await boundMerchant('http://127.0.0.1:9/bound-a');
    expectRefusal(await api('DELETE', `/${disabledId}`));
    expectRefusal(await api('PATCH', `/${disabledId}`, { status: 'enabled' }));
    expectRefusal(await api('PATCH', `/${disabledId}`, { status: 'disabled' }));
    expectRefusal(await api('PATCH', `/${disabledId}`, { url: 'http://127.0.0.1:9/somewhere-else' }));
    expect(await endpointRow(disabledId)).toEqual({
      url: 'http://127.0.0.1:9/bound-a',
      status: 'disabled',
      disabled_reason: 'disabled by an operator',
      disabled_by_operator: true,
      deleted: false,
    });
    // What cannot lift the operator's decision is still the merchant's to change.
    const described = await api('PATCH', `/${disabledId}`, { description: 'Old shop' });
    expect(described.status).toBe(200);
    expect(described.json).toMatchObject({ description: 'Old shop', status: 'disabled', disabledReason: 'disabled by an operator' });
  });

  it('refuses the same from the dashboard, saying why', async () => {
    const { merchant, disabledId } = await boundMerchant('http://127.0.0.1:9/bound-b');
    const browser = dashboardClient(stack.checkoutUrl);
    expect((await browser.signIn(merchant.apiKey)).status).toBe(303);
    await browser.get('/dashboard/webhooks');
    const added = await browser.post('/dashboard/webhooks/endpoints', { url: 'http://127.0.0.1:9/bound-b', events: '*' });
    expect(added.status).toBe(409);
    expect(added.body).toContain('An operator disabled');
    const deleted = await browser.post(`/dashboard/webhooks/endpoints/${disabledId}/delete`);
    expect(deleted.status).toBe(409);
    expect(deleted.body).toContain('An operator disabled');
    const moved = await browser.post('/dashboard/webhooks/url', { webhookUrl: 'http://127.0.0.1:9/moved-away' });
    expect(moved.status).toBe(409);
    expect(moved.body).toContain('An operator disabled');
    expect(await endpointRow(disabledId)).toMatchObject({ url: 'http://127.0.0.1:9/bound-b', status: 'disabled', disabled_by_operator: true, deleted: false });
    expect((await stack.db`select 1 from webhook_endpoints where platform_uuid = ${merchant.platformUuid} and deleted_at is null`).length).toBe(2);
  });

  it('is lifted by the operator’s enable only', async () => {
    const { merchant, api, disabledId } = await boundMerchant('http://127.0.0.1:9/bound-c');
    const enabled = await operator('POST', `/merchants/${merchant.platformUuid}/enable-endpoint`, { endpointId: disabledId });
    expect(enabled.status).toBe(200);
    expect((await api('PATCH', `/${disabledId}`, { status: 'disabled' })).json).toMatchObject({
      status: 'disabled',
      disabledReason: 'disabled by the merchant',
    });
    expect((await api('PATCH', `/${disabledId}`, { status: 'enabled' })).json).toMatchObject({ status: 'enabled' });
    expect((await api('POST', '', { url: 'http://127.0.0.1:9/bound-c', enabledEvents: ['order_refunded'] })).status).toBe(201);
    expect((await api('DELETE', `/${disabledId}`)).status).toBe(204);
  });
});
