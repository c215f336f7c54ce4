import { describe, expect, it } from 'vitest';
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
});
