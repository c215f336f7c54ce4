import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

// Addresses from the documentation ranges, fresh per test, so no other test file's traffic counts.
// With TRUST_PROXY=1 the client is the right-most X-Forwarded-For entry (what our proxy appended).
const freshAddress = () =>
  `203.0.113.${Math.floor(Math.random() * 254) + 1}, 198.51.${Math.floor(Math.random() * 100) + 100}.${Math.floor(Math.random() * 254) + 1}`;

async function expect429(res: Response) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  expect(await res.json()).toMatchObject({ code: 'RATE_LIMITED' });
}

describe('create-cart limits a stranger cannot turn against a merchant', () => {
  const stack = useTestStack({
    RATE_LIMIT_WINDOW_SECONDS: '3600',
    RATE_LIMIT_PER_CLIENT: '1000',
    RATE_LIMIT_PER_PLATFORM_CLIENT: '3',
    RATE_LIMIT_PER_PLATFORM: '6',
    TRUST_PROXY: '1',
  });

  it('refuses a stranger flooding a public platformUuid from one address, while the merchant’s own requests still pass', async () => {
    const { platformUuid } = await stack.createMerchant();
    const stranger = { 'x-forwarded-for': freshAddress() };
    const merchant = { 'x-forwarded-for': freshAddress() };

    for (let i = 0; i < 3; i++) expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), stranger)).status).toBe(200);
    // Far past its own share: every further request is refused, and none of them eats the merchant's ceiling.
    for (let i = 0; i < 10; i++) await expect429(await postCart(stack.apiUrl, validCartRequest(platformUuid), stranger));

    for (let i = 0; i < 3; i++) expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), merchant)).status).toBe(200);
    expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${platformUuid}`).toEqual([{ n: 6 }]);
  });

  it('still has a merchant-wide ceiling that a flood from many addresses reaches', async () => {
    const { platformUuid } = await stack.createMerchant();
    for (let i = 0; i < 6; i++) expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': freshAddress() })).status).toBe(200);
    await expect429(await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': freshAddress() }));
  });

  it('counts a stranger’s address per merchant: its flood at one merchant leaves another merchant open to it', async () => {
    const [a, b] = [await stack.createMerchant(), await stack.createMerchant()];
    const stranger = { 'x-forwarded-for': freshAddress() };
    for (let i = 0; i < 3; i++) expect((await postCart(stack.apiUrl, validCartRequest(a.platformUuid), stranger)).status).toBe(200);
    await expect429(await postCart(stack.apiUrl, validCartRequest(a.platformUuid), stranger));
    expect((await postCart(stack.apiUrl, validCartRequest(b.platformUuid), stranger)).status).toBe(200);
  });

  describe('counters charged after authentication', () => {
    // In process, with the client address in X-Forwarded-For (TRUST_PROXY=1), so a flood is cheap to send.
    let app: ReturnType<typeof createApiApp> | undefined;
    const post = (forwardedFor: string, body: unknown, headers: Record<string, string> = {}) =>
      (app ??= createApiApp({ config: stack.config, db: stack.db, temporal: stack.temporal, logger: stack.logger })).request(
        '/v2/public/api/cart/',
        { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor, ...headers }, body: JSON.stringify(body) },
        { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
      );
    const requireKey = (platformUuid: string) =>
      fetch(`${stack.apiUrl}/operator/merchants/${platformUuid}/settings`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${stack.config.operatorToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ requireApiKeyForCarts: true }),
      });

    it('keeps a merchant that requires its key open to its keyed create-cart after 10,000 unauthenticated requests from 50 addresses', async () => {
      const merchant = await stack.createMerchant();
      expect((await requireKey(merchant.platformUuid)).status).toBe(200);
      const body = validCartRequest(merchant.platformUuid);
      const addresses = Array.from({ length: 50 }, (_, i) => `192.0.2.1, 198.18.${Math.floor(Math.random() * 200)}.${i + 1}`);
      const statuses = new Map<number, number>();
      // 200 rounds of one request from each of the 50 addresses, 50 at a time.
      for (let round = 0; round < 200; round++) {
        const answers = await Promise.all(addresses.map(async (a) => post(a, body)));
        for (const res of answers) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 401: 10_000 });

      const keyed = await post(freshAddress(), body, { authorization: `Bearer ${merchant.apiKey}` });
      expect(keyed.status, await keyed.clone().text()).toBe(200);
      // Not one of them reached a counter of the merchant's.
      const charged =
        await stack.db`select bucket from rate_limit_windows where bucket like ${`platform%${merchant.platformUuid}%`} and bucket <> ${`platform-key:${merchant.platformUuid}`}`;
      expect(charged).toEqual([]);
    }, 300_000);

    it('gives the merchant’s keyed requests a ceiling of their own, even while it still takes public carts', async () => {
      const merchant = await stack.createMerchant();
      for (let i = 0; i < 6; i++) expect((await post(freshAddress(), validCartRequest(merchant.platformUuid))).status).toBe(200);
      await expect429(await post(freshAddress(), validCartRequest(merchant.platformUuid)));
      const keyed = await post(freshAddress(), validCartRequest(merchant.platformUuid), { authorization: `Bearer ${merchant.apiKey}` });
      expect(keyed.status).toBe(200);
    });
  });
});

describe('IPv6 clients: per /64, and together per /48', () => {
  const stack = useTestStack({
    RATE_LIMIT_WINDOW_SECONDS: '3600',
    RATE_LIMIT_PER_CLIENT: '1000',
    RATE_LIMIT_PER_PLATFORM_CLIENT: '2',
    RATE_LIMIT_PER_PLATFORM: '1000',
    RATE_LIMIT_IPV6_48_CLIENTS: '3',
    TRUST_PROXY: '1',
  });

  it('gives all the /64s of one /48 three clients’ share of a merchant, and another /48 its own', async () => {
    const { platformUuid } = await stack.createMerchant();
    const site = () => `2001:db8:${(Math.floor(Math.random() * 0xfff0) + 1).toString(16)}`;
    const from = (prefix: string, subnet: number) =>
      postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': `${prefix}:${subnet.toString(16)}::1` });
    const mine = site();
    // One /64 alone runs out after its own 2.
    expect((await from(mine, 1)).status).toBe(200);
    expect((await from(mine, 1)).status).toBe(200);
    await expect429(await from(mine, 1));
    // Other /64s of the same /48 share a ceiling of 3 × 2 = 6 (the refused request above counted for its /64 only).
    for (let subnet = 2; subnet <= 5; subnet++) expect((await from(mine, subnet)).status).toBe(200);
    await expect429(await from(mine, 6));
    expect((await from(site(), 1)).status).toBe(200);
  });
});
