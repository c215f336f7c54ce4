import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDemoStoreApp } from '../../demo-store/server.js';

const STORE = 'http://store.test';
const PASSWORD = 'the-owner-password-123';

/** The demo store's owner sign-in, through the app itself, as from a client at `address`. */
describe("the demo store's owner sign-in", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'demo-store-login-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const app = createDemoStoreApp({
    baseUrl: STORE,
    checkoutBaseUrl: 'http://checkout.test',
    publicUrl: 'https://store.example',
    apiBaseUrl: 'http://api.test',
    platformUuid: '00000000-0000-4000-8000-000000000000',
    apiKey: 'sk_test',
    webhookSecret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    ordersFile: path.join(dir, 'orders.json'),
    ownerPassword: PASSWORD,
    log: () => {},
  });
  const signIn = (password: string, address: string, next = '/orders') =>
    app.request(
      `${STORE}/login`,
      {
        method: 'POST',
        headers: { origin: STORE, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ password, next }).toString(),
      },
      { incoming: { socket: { remoteAddress: address } } },
    );

  it('goes after sign-in only to a page of this store, however `next` is spelled', async () => {
    // Browsers drop tabs and newlines from URLs and read a backslash as a slash: each of these leaves the store.
    for (const next of [
      '/\t/evil.example',
      '/\n/evil.example',
      '/\\evil.example',
      '\\/evil.example',
      '//evil.example',
      'https://evil.example/orders',
      '/\t\\evil.example',
      // Dot segments, plain or encoded, leave `//evil.example` once resolved: sent as a path, another host.
      '/.//evil.example',
      '/%2e//evil.example',
      '/orders/..//evil.example',
      '/orders/%2E%2E/.//evil.example',
    ]) {
      const response = await signIn(PASSWORD, '198.51.100.1', next);
      expect(response.status, JSON.stringify(next)).toBe(303);
      expect(response.headers.get('location'), JSON.stringify(next)).toBe('/orders');
      const form = await app.request(`${STORE}/login?next=${encodeURIComponent(next)}`);
      expect(await form.text(), JSON.stringify(next)).toContain('name="next" value="/orders"');
    }
    const kept = await signIn(PASSWORD, '198.51.100.1', '/orders?sort=new#ord_1');
    expect(kept.headers.get('location')).toBe('/orders?sort=new#ord_1');
  });

  it('counts wrong passwords per client address: a stranger locks out only itself, never the owner', async () => {
    for (let i = 0; i < 10; i++) expect((await signIn('wrong-password', '203.0.113.7')).status).toBe(401);
    expect((await signIn('wrong-password', '203.0.113.7')).status).toBe(429);
    expect((await signIn(PASSWORD, '203.0.113.7')).status).toBe(429);
    const owner = await signIn(PASSWORD, '192.0.2.10');
    expect(owner.status).toBe(303);
    expect(owner.headers.get('set-cookie')).toMatch(/^demo_store_owner=/);
  });
});
