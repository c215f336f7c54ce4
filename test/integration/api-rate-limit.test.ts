import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

async function expect429(res: Response, windowSeconds: number) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(await res.json()).toMatchObject({ code: 'RATE_LIMITED', errors: [] });
}

// Addresses from the documentation ranges, fresh per test, so no other test file's traffic counts.
const testNetAddress = () => `198.51.100.${Math.floor(Math.random() * 254) + 1}, 203.0.113.${Math.floor(Math.random() * 254) + 1}`;

describe('rate limits of POST /v2/public/api/cart/', () => {
  describe('behind one trusted proxy', () => {
    const stack = useTestStack({ RATE_LIMIT_PER_PLATFORM: '3', RATE_LIMIT_PER_CLIENT: '4', RATE_LIMIT_WINDOW_SECONDS: '3600', TRUST_PROXY: '1' });

    it('limits each platformUuid, whatever address it comes from, and not the others', async () => {
      const [a, b] = [await stack.createMerchant(), await stack.createMerchant()];
      for (let i = 0; i < 3; i++)
        expect((await postCart(stack.apiUrl, validCartRequest(a.platformUuid), { 'x-forwarded-for': `192.0.2.${i + 1}` })).status).toBe(200);
      await expect429(await postCart(stack.apiUrl, validCartRequest(a.platformUuid), { 'x-forwarded-for': '192.0.2.99' }), 3600);
      expect((await postCart(stack.apiUrl, validCartRequest(b.platformUuid), { 'x-forwarded-for': '192.0.2.100' })).status).toBe(200);
      // A refused request creates nothing.
      expect(await stack.db`select count(*)::int as n from carts where platform_uuid = ${a.platformUuid}`).toEqual([{ n: 3 }]);
    });

    it('limits each client address, counting bad requests too, and answers 429 before a bad body', async () => {
      const forwarded = testNetAddress();
      const { platformUuid } = await stack.createMerchant();
      for (let i = 0; i < 4; i++) expect((await postCart(stack.apiUrl, '{', { 'x-forwarded-for': forwarded })).status).toBe(400);
      await expect429(await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': forwarded }), 3600);
      // Over its limit, the client learns nothing more from its bodies: a bad one is answered 429 too.
      await expect429(await postCart(stack.apiUrl, '{', { 'x-forwarded-for': forwarded }), 3600);
      // The client is the address our proxy saw (the right-most one it appended), not what it was told.
      const sameClientOtherClaim = `10.9.8.7, ${forwarded.split(', ')[1]}`;
      await expect429(await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': sameClientOtherClaim }), 3600);
      expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': testNetAddress() })).status).toBe(200);
    });

    it('shares its counters between API processes (they live in PostgreSQL)', async () => {
      const second = createApiApp({ config: stack.config, db: stack.db, temporal: stack.temporal, logger: stack.logger });
      const { platformUuid } = await stack.createMerchant();
      const viaSecond = (i: number) =>
        second.request(
          '/v2/public/api/cart/',
          {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `192.0.2.${i}` },
            body: JSON.stringify(validCartRequest(platformUuid)),
          },
          { incoming: { socket: { remoteAddress: '127.0.0.1' } } },
        );
      expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': '192.0.2.10' })).status).toBe(200);
      expect((await viaSecond(11)).status).toBe(200);
      expect((await postCart(stack.apiUrl, validCartRequest(platformUuid), { 'x-forwarded-for': '192.0.2.12' })).status).toBe(200);
      await expect429(await viaSecond(13), 3600);
    });
  });

  describe('with no trusted proxy', () => {
    const stack = useTestStack({ RATE_LIMIT_PER_CLIENT: '3', RATE_LIMIT_WINDOW_SECONDS: '3600' });

    it('ignores X-Forwarded-For: a client cannot escape its limit by forging it', async () => {
      const statuses: number[] = [];
      // Other test files count against 127.0.0.1 too, so the 4th request is refused at the latest.
      for (let i = 0; i < 4; i++) statuses.push((await postCart(stack.apiUrl, validCartRequest(randomUUID()), { 'x-forwarded-for': testNetAddress() })).status);
      expect(statuses.at(-1)).toBe(429);
    });
  });
});
