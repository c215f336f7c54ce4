import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { cartEvents } from '../support/cart-events.js';
import { startDemoStoreOnStack } from '../support/demo-store.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

describe('the demo store npm start runs, against the real API and webhooks', () => {
  const stack = useTestStack();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'demo-store-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates the cart from its server, verifies our signed webhook, refuses a forged one, and keeps its orders on disk', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const merchant = await stack.createMerchant({ name: 'Demo Store', webhookUrl: `${baseUrl}/webhooks` });
    const lines: string[] = [];
    const ordersFile = path.join(dataDir, 'orders.json');
    const store = await startDemoStoreOnStack(stack, merchant, { port, baseUrl, ordersFile, log: (line) => lines.push(line) });
    try {
      const bought = await fetch(`${baseUrl}/checkout`, {
        method: 'POST',
        headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'qty-espresso-cup=2&qty-notebook=1',
        redirect: 'manual',
      });
      expect(bought.status).toBe(303);
      const checkoutUrl = new URL(bought.headers.get('location')!);
      expect(checkoutUrl.origin).toBe(new URL(stack.checkoutUrl).origin);
      const cartId = checkoutUrl.searchParams.get('token')!;
      const [cart] = await stack.db<{ amount: string; cart: { extra: Record<string, string> } }[]>`select amount, cart from carts where cart_id = ${cartId}`;
      expect(Number(cart!.amount)).toBe(3900);
      const orderId = cart!.cart.extra.orderId!;
      expect(orderId).toMatch(/^ord_/);

      // Back from the checkout before any webhook: the order waits, and its page refreshes itself.
      const early = await (await fetch(`${baseUrl}/orders/${orderId}?return=success&cartId=${cartId}`)).text();
      expect(early).toContain('Waiting for the payment confirmation webhook');
      expect(early).toContain('<meta http-equiv="refresh" content="2" />');
      expect(early).toContain('<dd data-testid="fulfilled">no</dd>');
      const policy = (await fetch(`${baseUrl}/orders`)).headers.get('content-security-policy');
      expect(policy).toBe(
        `default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' ${new URL(stack.checkoutUrl).origin}; frame-ancestors 'none'; base-uri 'none'`,
      );

      // A cross-site form post is refused before it creates anything.
      const forgedForm = await fetch(`${baseUrl}/checkout`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'qty-notebook=1',
        redirect: 'manual',
      });
      expect(forgedForm.status).toBe(403);

      const { eventId } = await cartEvents(stack).recordCartEvent({ cartId, event: 'order_cancelled', status: 'cancelled' });
      await waitFor(() => lines.find((l) => l.includes(`order_cancelled #1 for cart ${cartId}: cancelled (applied)`)), {
        what: 'the store to apply the webhook',
      });

      const forged = await fetch(`${baseUrl}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': eventId,
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: JSON.stringify({ id: eventId, event: 'order_created', sequence: 9, data: { cartId, status: 'paid' } }),
      });
      expect(forged.status).toBe(400);

      const page = await (await fetch(`${baseUrl}/orders/${orderId}`)).text();
      expect(page).toContain('Not paid: the last webhook says <strong>cancelled</strong>');
      const saved = JSON.parse(readFileSync(ordersFile, 'utf8'));
      expect(saved.orders[0]).toMatchObject({ id: orderId, cartId, status: 'cancelled', fulfilledAt: null, total: 3900 });
      expect(saved.orders[0].webhooks.map((w: { event: string; verified: boolean }) => [w.event, w.verified])).toEqual([
        ['order_cancelled', true],
        ['(unverified)', false],
      ]);
    } finally {
      await store.close();
    }
  });
});
