import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

type Success = { data: { cartId: string; expiresOn: string } };

describe('Idempotency-Key on POST /v2/public/api/cart/', () => {
  const stack = useTestStack();

  async function sessionsOf(platformUuid: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const w of stack.temporal.client.workflow.list({ query: `MerchantId = '${platformUuid}'` })) ids.push(w.workflowId);
    return ids;
  }

  it('replays the first response (same cartId, same body) for the same key and body, and says so', async () => {
    const { platformUuid } = await stack.createMerchant();
    const key = randomUUID();
    const first = await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();

    // Same body, other key order and spacing: still the same request.
    const request = validCartRequest(platformUuid);
    const reordered = JSON.stringify({ cartObject: { cart: request.cartObject.cart, store: request.cartObject.store } }, null, 2);
    const again = await postCart(stack.apiUrl, reordered, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`).toEqual([{ n: 1 }]);
  });

  it('takes a request that spells out the defaults (sessionMinutes, captureMethod) as the one that leaves them out', async () => {
    const { platformUuid } = await stack.createMerchant();
    const defaultMinutes = stack.config.sessionLifetimeMs / 60_000;
    expect(Number.isInteger(defaultMinutes)).toBe(true);
    const key = randomUUID();
    const bare = validCartRequest(platformUuid);
    const first = await postCart(stack.apiUrl, bare, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const spelledOut = validCartRequest(platformUuid);
    Object.assign(spelledOut.cartObject.cart, { sessionMinutes: defaultMinutes, captureMethod: 'automatic' });
    const again = await postCart(stack.apiUrl, spelledOut, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    // Another lifetime is another request.
    Object.assign(spelledOut.cartObject.cart, { sessionMinutes: defaultMinutes + 1 });
    expect((await postCart(stack.apiUrl, spelledOut, { 'idempotency-key': key })).status).toBe(409);
    expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`).toEqual([{ n: 1 }]);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT for the same key with another body, creating nothing', async () => {
    const { platformUuid } = await stack.createMerchant();
    const key = randomUUID();
    expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key })).status).toBe(200);
    const other = validCartRequest(platformUuid);
    other.cartObject.cart.items[0]!.quantity = 3;
    const res = await postCart(stack.apiUrl, other, { 'idempotency-key': key });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', errors: [{ path: 'Idempotency-Key' }] });
    expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`).toEqual([{ n: 1 }]);
  });

  it('scopes keys by merchant: two merchants may use the same key', async () => {
    const [a, b] = [await stack.createMerchant(), await stack.createMerchant()];
    const key = randomUUID();
    const ra = (await (await postCart(stack.apiUrl, validCartRequest(a.platformUuid), { 'idempotency-key': key })).json()) as Success;
    const rb = await postCart(stack.apiUrl, validCartRequest(b.platformUuid), { 'idempotency-key': key });
    expect(rb.status).toBe(200);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(((await rb.json()) as Success).data.cartId).not.toBe(ra.data.cartId);
  });

  it('gives 10 concurrent requests with one key one cartId, one ledger row, one workflow', async () => {
    const { platformUuid } = await stack.createMerchant();
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 10 }, () => postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key })));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as Success[];
    expect(new Set(bodies.map((b) => b.data.cartId)).size).toBe(1);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect(await stack.db`select cart_id from carts where platform_uuid = ${platformUuid}`).toEqual([{ cart_id: bodies[0]!.data.cartId }]);
    // Visibility is eventually consistent: wait until the one workflow shows, then check there is no other.
    await expect.poll(() => sessionsOf(platformUuid), { timeout: 10_000 }).toEqual([`cart-${bodies[0]!.data.cartId}`]);
  });

  it('lets a key be reused once its 24 hours are over', async () => {
    const { platformUuid } = await stack.createMerchant();
    const key = randomUUID();
    const first = (await (await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key })).json()) as Success;
    await stack.db`update idempotency_keys set expires_at = now() - interval '1 second' where platform_uuid = ${platformUuid} and key = ${key}`;
    const second = await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(((await second.json()) as Success).data.cartId).not.toBe(first.data.cartId);
  });

  it('refuses a malformed key with a VALIDATION_ERROR naming the header', async () => {
    const { platformUuid } = await stack.createMerchant();
    for (const key of ['short', 'x'.repeat(256), 'has space in it', 'naïve-key-123']) {
      const res = await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'Idempotency-Key' }] });
    }
    expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`).toEqual([{ n: 0 }]);
  });

  it('does not store failures: a key used on an invalid request still works for a valid one', async () => {
    const { platformUuid } = await stack.createMerchant();
    const key = randomUUID();
    const invalid = validCartRequest(platformUuid);
    invalid.cartObject.cart.currency = 'EURO';
    expect((await postCart(stack.apiUrl, invalid, { 'idempotency-key': key })).status).toBe(400);
    expect((await postCart(stack.apiUrl, validCartRequest(randomUUID()), { 'idempotency-key': key })).status).toBe(422);
    const ok = await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'idempotency-key': key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  describe('scoped to the caller: the merchant’s API key, or (platformUuid, client address)', () => {
    // In process, so each request can come from an address of our choosing (no proxy is trusted here).
    let app: ReturnType<typeof createApiApp> | undefined;
    const from = (address: string, body: unknown, headers: Record<string, string>) =>
      (app ??= createApiApp({ config: stack.config, db: stack.db, temporal: stack.temporal, logger: stack.logger })).request(
        '/v2/public/api/cart/',
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) },
        { incoming: { socket: { remoteAddress: address } } },
      );
    const cartIdOf = async (res: Response) => {
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return (JSON.parse(text) as Success).data.cartId;
    };

    it('lets no stranger squat the merchant’s key: a public request never blocks nor replays the keyed one', async () => {
      const merchant = await stack.createMerchant();
      const key = 'order-1001';
      const keyed = { 'idempotency-key': key, authorization: `Bearer ${merchant.apiKey}` };
      const squatter = validCartRequest(merchant.platformUuid);
      squatter.cartObject.cart.items[0]!.quantity = 9;
      // The stranger uses the key first, with another body, and again with the merchant's exact body.
      const squatted = await cartIdOf(await from('192.0.2.66', squatter, { 'idempotency-key': key }));

      const first = await from('192.0.2.10', validCartRequest(merchant.platformUuid), keyed);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const mine = await cartIdOf(first);
      expect(mine).not.toBe(squatted);

      const guessed = await from('192.0.2.67', validCartRequest(merchant.platformUuid), { 'idempotency-key': key });
      expect(guessed.headers.get('idempotent-replayed')).toBeNull();
      expect(await cartIdOf(guessed)).not.toBe(mine);

      // The merchant's retry, from any of its addresses, is its own replay.
      const retry = await from('198.51.100.20', validCartRequest(merchant.platformUuid), keyed);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await cartIdOf(retry)).toBe(mine);
    });

    it('scopes public keys by client address: a public retry from another address is a new cart (the documented trade-off)', async () => {
      const { platformUuid } = await stack.createMerchant();
      const key = randomUUID();
      const first = await cartIdOf(await from('192.0.2.30', validCartRequest(platformUuid), { 'idempotency-key': key }));
      const sameAddress = await from('192.0.2.30', validCartRequest(platformUuid), { 'idempotency-key': key });
      expect(sameAddress.headers.get('idempotent-replayed')).toBe('true');
      expect(await cartIdOf(sameAddress)).toBe(first);
      expect(await cartIdOf(await from('192.0.2.31', validCartRequest(platformUuid), { 'idempotency-key': key }))).not.toBe(first);
    });
  });
});
