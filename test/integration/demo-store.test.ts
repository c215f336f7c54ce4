import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { cartEvents } from '../support/cart-events.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { signInToDemoStore, startDemoStoreOnStack } from '../support/demo-store.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { ensureDemoMerchant } from '../../scripts/demo-merchant.js';

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
      const [cart] = await stack.db<
        { amount: string; cart: { extra: Record<string, string> }; created_with: string }[]
      >`select amount, cart, created_with from carts where cart_id = ${cartId}`;
      expect(Number(cart!.amount)).toBe(3900);
      // Created with the store's API key: its webhooks say createdWith "api_key", which no stranger's cart can.
      expect(cart!.created_with).toBe('api_key');
      const orderId = cart!.cart.extra.orderId!;
      expect(orderId).toMatch(/^ord_/);

      // Back from the checkout before any webhook: the order waits, and its page refreshes itself.
      const early = await (await fetch(`${baseUrl}/orders/${orderId}?return=success&cartId=${cartId}`)).text();
      expect(early).toContain('Waiting for the payment confirmation webhook');
      expect(early).toContain('<meta http-equiv="refresh" content="2" />');
      expect(early).toContain('<dd data-testid="fulfilled">no</dd>');
      const { cookie } = await signInToDemoStore(baseUrl, store.ownerPassword);
      const policy = (await fetch(`${baseUrl}/orders`, { headers: { cookie } })).headers.get('content-security-policy');
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

  it('sells a ship-later product with captureMethod manual, and its orders page captures the authorized order', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const merchant = await stack.createMerchant({ name: 'Demo Store Ship Later', webhookUrl: `${baseUrl}/webhooks` });
    const store = await startDemoStoreOnStack(stack, merchant, { port, baseUrl, ordersFile: path.join(dataDir, 'ship-later-orders.json'), log: () => {} });
    const post = (pathname: string, body: Record<string, string>, cookie?: string) =>
      fetch(`${baseUrl}${pathname}`, {
        method: 'POST',
        headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
        body: new URLSearchParams(body).toString(),
        redirect: 'manual',
      });
    try {
      const bought = await post('/checkout', { 'qty-serving-bowl': '1' });
      expect(bought.status).toBe(303);
      const cartId = new URL(bought.headers.get('location')!).searchParams.get('token')!;
      const [cart] = await stack.db<{ cart: { captureMethod?: string; extra: Record<string, string> } }[]>`select cart from carts where cart_id = ${cartId}`;
      expect(cart!.cart.captureMethod).toBe('manual');
      const orderId = cart!.cart.extra.orderId!;

      const driver = cartSessionDriver(stack, merchant.platformUuid);
      const session = { cartId, handle: driver.handleOf(cartId) };
      await driver.sendCode(session);
      await driver.verify(session, await driver.sentCode(session));
      expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('authorized');

      const { cookie } = await signInToDemoStore(baseUrl, store.ownerPassword);
      const ordersPage = async () => (await fetch(`${baseUrl}/orders`, { headers: { cookie } })).text();
      await waitFor(async () => ((await ordersPage()).includes(`action="/orders/${orderId}/capture"`) ? true : undefined), {
        what: 'the authorized order offered for capture',
      });

      const captured = await post(`/orders/${orderId}/capture`, {}, cookie);
      expect(captured.status).toBe(303);
      const [row] = await stack.db<{ status: string; captured_amount: string | null }[]>`select status, captured_amount from carts where cart_id = ${cartId}`;
      expect(row).toMatchObject({ status: 'paid' });
      expect(Number(row!.captured_amount)).toBe(3400);
      // Its order_updated (paid) reaches the store: the capture form gives way to the refund form.
      await waitFor(async () => (!(await ordersPage()).includes(`action="/orders/${orderId}/capture"`) ? true : undefined), {
        what: 'the captured order no longer offered for capture',
      });
      expect(await ordersPage()).toContain(`action="/orders/${orderId}/refunds"`);
    } finally {
      await store.close();
    }
  });

  it('keeps the orders page and refunds for the store owner: a signed, HttpOnly, SameSite=Strict session; the shop and the webhook endpoint stay public', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const merchant = await stack.createMerchant({ name: 'Demo Store Owner', webhookUrl: `${baseUrl}/webhooks` });
    const store = await startDemoStoreOnStack(stack, merchant, { port, baseUrl, ordersFile: path.join(dataDir, 'owner-orders.json'), log: () => {} });
    const form = (body: Record<string, string>, cookie?: string) => ({
      method: 'POST',
      headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(body).toString(),
      redirect: 'manual' as const,
    });
    try {
      const bought = await fetch(`${baseUrl}/checkout`, form({ 'qty-notebook': '1' }));
      expect(bought.status).toBe(303);
      const cartId = new URL(bought.headers.get('location')!).searchParams.get('token')!;
      const [cart] = await stack.db<{ cart: { extra: Record<string, string> } }[]>`select cart from carts where cart_id = ${cartId}`;
      const orderId = cart!.cart.extra.orderId!;
      const refundForm = { amount: '1.00', idempotencyKey: '0b7f3c1e-2f4a-4d7e-9c1b-8a6e5d4c3b2a' };

      // Without a session: the orders page sends to the sign-in form, a refund is refused and asks nothing of the API.
      const orders = await fetch(`${baseUrl}/orders`, { redirect: 'manual' });
      expect(orders.status).toBe(303);
      expect(orders.headers.get('location')).toBe('/login?next=%2Forders');
      const refused = await fetch(`${baseUrl}/orders/${orderId}/refunds`, form(refundForm));
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain('Only the store owner can refund');
      // The shop and a customer's own order page (its return URL) stay public.
      expect((await fetch(`${baseUrl}/`)).status).toBe(200);
      expect((await fetch(`${baseUrl}/orders/${orderId}`)).status).toBe(200);

      // A wrong password, a forged cookie and a cross-site sign-in get nothing.
      const wrong = await signInToDemoStore(baseUrl, 'not-the-password');
      expect(wrong.response.status).toBe(401);
      expect(wrong.setCookie).toBe('');
      const forgedCookie = `demo_store_owner=${encodeURIComponent(`${Date.now() + 3_600_000}.${'A'.repeat(43)}=`)}`;
      expect((await fetch(`${baseUrl}/orders`, { headers: { cookie: forgedCookie }, redirect: 'manual' })).status).toBe(303);
      const crossSite = await fetch(`${baseUrl}/login`, {
        ...form({ password: store.ownerPassword }),
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(crossSite.status).toBe(403);

      // The owner's password: a signed session cookie, HttpOnly and SameSite=Strict, that opens both.
      const owner = await signInToDemoStore(baseUrl, store.ownerPassword);
      expect(owner.response.status).toBe(303);
      expect(owner.response.headers.get('location')).toBe('/orders');
      expect(owner.setCookie).toMatch(/^demo_store_owner=[^;]+; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict$/);
      const page = await fetch(`${baseUrl}/orders`, { headers: { cookie: owner.cookie }, redirect: 'manual' });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(orderId);
      // Signed in, the refund reaches the API, which refuses it for this unpaid order (not the store's 401).
      const asked = await fetch(`${baseUrl}/orders/${orderId}/refunds`, form(refundForm, owner.cookie));
      expect(asked.status).toBe(422);
      expect(await asked.text()).not.toContain('Sign in required');

      // Signed out, the cookie is cleared.
      const out = await fetch(`${baseUrl}/logout`, form({}, owner.cookie));
      expect(out.status).toBe(303);
      expect(out.headers.get('set-cookie')).toMatch(/^demo_store_owner=; Max-Age=0/);
    } finally {
      await store.close();
    }
  });

  it('has two endpoints, as npm start makes it: its orders get every event, its accounting only the refunds, each under its own secret', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const file = path.join(dataDir, 'demo-merchant.json');
    const merchant = await ensureDemoMerchant({ db: stack.db, config: stack.config }, file, `${baseUrl}/webhooks`);
    expect(merchant.accounting).toMatchObject({ url: `${baseUrl}/webhooks/accounting`, webhookSecret: expect.stringMatching(/^whsec_/) });
    expect(merchant.accounting.webhookSecret).not.toBe(merchant.webhookSecret);
    // A second start reuses both endpoints and their secrets.
    expect(await ensureDemoMerchant({ db: stack.db, config: stack.config }, file, `${baseUrl}/webhooks`)).toEqual(merchant);
    const lines: string[] = [];
    const store = await startDemoStoreOnStack(stack, merchant, {
      port,
      baseUrl,
      ordersFile: path.join(dataDir, 'two-endpoints-orders.json'),
      log: (line) => lines.push(line),
      accountingWebhookSecret: merchant.accounting.webhookSecret,
    });
    try {
      const bought = await fetch(`${baseUrl}/checkout`, {
        method: 'POST',
        headers: { origin: baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'qty-notebook=1',
        redirect: 'manual',
      });
      const cartId = new URL(bought.headers.get('location')!).searchParams.get('token')!;
      const [cart] = await stack.db<{ amount: string }[]>`select amount from carts where cart_id = ${cartId}`;
      const amount = Number(cart!.amount);
      const payment = { brand: 'visa', last4: '1111' };
      const events = cartEvents(stack);
      await events.recordCartEvent({ cartId, event: 'order_updated', status: 'processing', payment });
      await events.recordCartEvent({ cartId, event: 'order_created', status: 'paid', payment });
      await events.recordCartEvent({
        cartId,
        event: 'order_refunded',
        status: 'partially_refunded',
        payment,
        refund: { id: 're_demo', amount: 100, refundedTotal: 100, reason: null },
      });
      await waitFor(() => lines.find((l) => l.includes('order_refunded #3') && l.includes('(applied)')), { what: 'the refund at the orders endpoint' });
      await waitFor(() => lines.find((l) => l === '[demo store accounting] refund booked'), { what: 'the refund at the accounting endpoint' });
      expect(lines.filter((l) => l.startsWith('[demo store accounting]'))).toEqual(['[demo store accounting] refund booked']);
      const { cookie } = await signInToDemoStore(baseUrl, store.ownerPassword);
      const page = await (await fetch(`${baseUrl}/orders`, { headers: { cookie } })).text();
      expect(page).toContain('<code>re_demo</code> of cart');
      expect(amount).toBeGreaterThan(100);
    } finally {
      await store.close();
    }
  });
});
