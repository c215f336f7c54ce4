import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { startDemoStoreOnStack } from '../support/demo-store.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * Posts the shop's form as a script would, the store's own Origin forged, from `localAddress` (any
 * 127.x address is this machine's loopback: a second client to the store).
 */
function placeOrder(baseUrl: string, localAddress = '127.0.0.1'): Promise<{ status: number; location: string | undefined; retryAfter: string | undefined }> {
  const body = 'qty-notebook=1';
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}/checkout`,
      {
        method: 'POST',
        localAddress,
        headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ordersIn = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { orders: unknown[] }).orders;

describe('the demo store’s orders stay bounded whoever posts its form', () => {
  const stack = useTestStack();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'demo-store-bound-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function startStore(options: { maxOrders?: number; ordersPerMinute?: number }) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const merchant = await stack.createMerchant({ name: 'Demo Store', webhookUrl: `${baseUrl}/webhooks` });
    const ordersFile = path.join(dataDir, `orders-${port}.json`);
    const store = await startDemoStoreOnStack(stack, merchant, { port, baseUrl, ordersFile, log: () => {}, ...options });
    return { store, baseUrl, ordersFile };
  }

  it('refuses a new order once the file holds its maximum, and keeps the orders it has', async () => {
    const { store, baseUrl, ordersFile } = await startStore({ maxOrders: 3, ordersPerMinute: 100 });
    try {
      for (let i = 0; i < 3; i++) expect((await placeOrder(baseUrl)).status).toBe(303);
      const kept = ordersIn(ordersFile);
      expect(kept).toHaveLength(3);
      for (let i = 0; i < 3; i++) expect((await placeOrder(baseUrl)).status, `order ${4 + i}`).toBe(503);
      expect(ordersIn(ordersFile)).toEqual(kept);
    } finally {
      await store.close();
    }
  });

  it('takes at most ordersPerMinute orders a minute from one client address; another address is not held back', async () => {
    const { store, baseUrl, ordersFile } = await startStore({ ordersPerMinute: 3 });
    try {
      for (let i = 0; i < 3; i++) expect((await placeOrder(baseUrl)).status).toBe(303);
      const refused = await placeOrder(baseUrl);
      expect(refused.status, 'the 4th order of a minute').toBe(429);
      expect(refused.retryAfter).toBe('60');
      expect(ordersIn(ordersFile)).toHaveLength(3);
      expect((await placeOrder(baseUrl, '127.0.0.2')).status).toBe(303);
      expect(ordersIn(ordersFile)).toHaveLength(4);
    } finally {
      await store.close();
    }
  });

  it('without settings, takes 10 orders a minute from one client address', async () => {
    const { store, baseUrl } = await startStore({});
    try {
      for (let i = 0; i < 10; i++) expect((await placeOrder(baseUrl, '127.0.0.3')).status).toBe(303);
      expect((await placeOrder(baseUrl, '127.0.0.3')).status).toBe(429);
    } finally {
      await store.close();
    }
  });
});
