import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { secureHeaders } from 'hono/secure-headers';
import { CURRENCY, MAX_QUANTITY, PRODUCTS, findProduct, parseAmount } from './catalogue.js';
import { HostedCheckoutError, createHostedCheckoutClient, type HostedCheckoutSettings } from './hosted-checkout.js';
import { OrdersFullError, openOrderStore, switchToRetry, type StoreOrder } from './order-store.js';
import { perClientLimit } from './client-limit.js';
import { ownerLogin, safeNext } from './owner-login.js';
import { loginPage, orderPage, ordersPage, payHerePage, problemPage, shopPage } from './views.js';
import { createWebhookReceiver } from './webhooks.js';
import { createAccountingReceiver } from './accounting.js';

export interface DemoStoreSettings extends HostedCheckoutSettings {
  /** Where customers reach this store (the return URLs are built on it), e.g. http://localhost:3002. */
  baseUrl: string;
  /** Where the checkout page is: the customer is redirected to `{checkoutBaseUrl}/?token=<cartId>`. */
  checkoutBaseUrl: string;
  /** `whsec_…`, as shown once when the endpoint was registered. */
  webhookSecret: string;
  /** The secret of the accounting endpoint (`/webhooks/accounting`, order_refunded only); without it, that endpoint is not served. */
  accountingWebhookSecret?: string;
  /** The store's public https address: the checkout page links to it and loads product images from it (it refuses loopback there). */
  publicUrl: string;
  /** The JSON file of the store's orders. */
  ordersFile: string;
  /** The store owner's password, for the orders page and refunds (demo-store/owner-login.ts ownerPasswordIn keeps one in a file). */
  ownerPassword: string;
  /** The most orders the file holds (order-store.ts MAX_ORDERS by default); past it, new orders are refused. */
  maxOrders?: number;
  /** Orders one client address may place a minute (ORDERS_PER_MINUTE by default). */
  ordersPerMinute?: number;
  log: (line: string) => void;
  /**
   * "Pay without leaving the store": the store's address on another site than the checkout's (npm start:
   * http://127.0.0.1:3002, the checkout being on localhost), where the order's page mounts the embedded
   * checkout, and the `integrity` of the checkout's /embed.js. Without it, the store only redirects.
   */
  embedding?: { storeUrl: string; scriptIntegrity: string };
}

const STYLESHEET = readFileSync(new URL('./assets/store.css', import.meta.url), 'utf8');
const PAY_HERE_SCRIPT = readFileSync(new URL('./assets/pay-here.js', import.meta.url), 'utf8');
const MAX_WEBHOOK_BYTES = 1024 * 1024;
/** A customer places one order per checkout: ten a minute is plenty, and slows a script filling the store. */
const ORDERS_PER_MINUTE = 10;

export function createDemoStoreApp(settings: DemoStoreSettings) {
  const store = openOrderStore(settings.ordersFile, settings.maxOrders);
  const orderLimit = perClientLimit({ max: settings.ordersPerMinute ?? ORDERS_PER_MINUTE, windowMs: 60_000, trackedClients: 10_000 });
  const checkout = createHostedCheckoutClient(settings);
  const webhooks = createWebhookReceiver({ secret: settings.webhookSecret, store });
  const accounting = settings.accountingWebhookSecret ? createAccountingReceiver({ secret: settings.accountingWebhookSecret, store }) : undefined;
  const base = settings.baseUrl.replace(/\/+$/, '');
  const publicUrl = settings.publicUrl.replace(/\/+$/, '');
  const owner = ownerLogin({ password: settings.ownerPassword, secure: base.startsWith('https:') });
  const checkoutOrigin = new URL(settings.checkoutBaseUrl).origin;
  const embedding = settings.embedding;
  const app = new Hono();

  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        // The embedded checkout: embed.js from the checkout's origin, and its frame.
        ...(embedding ? { scriptSrc: ["'self'", checkoutOrigin], frameSrc: [checkoutOrigin] } : {}),
        // The buy form's answer is a redirect to the checkout page, which form-action also governs.
        formAction: ["'self'", checkoutOrigin, ...(embedding ? [new URL(embedding.storeUrl).origin] : [])],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'no-referrer',
      xFrameOptions: 'DENY',
    }),
  );
  // Form posts must come from this store's own pages (Origin / Sec-Fetch-Site). The webhook endpoint is
  // called by servers, not browsers, and proves itself by its signature instead.
  const sameOriginForms = csrf();
  app.use((c, next) => (c.req.path === '/webhooks' || c.req.path === '/webhooks/accounting' ? next() : sameOriginForms(c, next)));
  app.get('/assets/store.css', (c) => c.body(STYLESHEET, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'max-age=300' }));

  app.get('/assets/pay-here.js', (c) => c.body(PAY_HERE_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'max-age=300' }));

  app.get('/', (c) => c.html(shopPage(quantitiesFrom(c.req.query()), undefined, embedding !== undefined)));

  /** The order paid in the store's own page (embedding.storeUrl), with the checkout in a frame. */
  app.get('/orders/:id/pay-here', (c) => {
    const order = store.get(c.req.param('id'));
    if (!embedding || !order?.cartId) return c.html(problemPage('Order not found', 'There is no such order to pay in this store.'), 404);
    return c.html(payHerePage(order, { scriptUrl: `${checkoutOrigin}/embed.js`, integrity: embedding.scriptIntegrity }));
  });

  app.post('/checkout', async (c) => {
    const form = await c.req.parseBody<Record<string, string>>();
    const quantities = quantitiesFrom(form);
    const items = PRODUCTS.filter((p) => (quantities[p.id] ?? 0) > 0).map((p) => ({
      productId: p.id,
      title: p.title,
      price: p.price,
      quantity: quantities[p.id] ?? 0,
    }));
    if (items.length === 0) return c.html(shopPage(quantities, 'Choose at least one product.', embedding !== undefined), 422);
    // The connection's address, as for the sign-in: behind a proxy, use the address it forwards.
    const address = getConnInfo(c).remote.address ?? 'unknown';
    if (orderLimit.reached(address)) {
      c.header('retry-after', '60');
      return c.html(shopPage(quantities, 'Too many orders from your address: wait a minute and try again.'), 429);
    }
    orderLimit.count(address);
    let order: StoreOrder;
    try {
      order = await store.create({ currency: CURRENCY, items, total: items.reduce((sum, i) => sum + i.price * i.quantity, 0) });
    } catch (err) {
      if (!(err instanceof OrdersFullError)) throw err;
      settings.log(`[demo store] order refused: ${err.message}`);
      return c.html(shopPage(quantities, 'The shop is not taking new orders right now: please try again later.'), 503);
    }
    return openCheckout(c, order, form.mode === 'embedded');
  });

  /** Retrying a failed create-cart sends the same Idempotency-Key (the order id): never two carts. */
  app.post('/orders/:id/pay', async (c) => {
    const order = store.get(c.req.param('id'));
    if (!order) return c.html(problemPage('Order not found', 'There is no such order in this store.'), 404);
    if (order.cartId) return c.redirect(`/orders/${order.id}`, 303);
    return openCheckout(c, order);
  });

  /**
   * Try another card, from the order page of a payment the webhook said failed: a retry of the same
   * cart (a new session, the same items and total), and the customer is sent to its page. The order
   * keeps its id; its payment moves to the new cart, whose webhooks say `retryOf` (./webhooks.ts).
   */
  app.post('/orders/:id/retry', async (c) => {
    const order = store.get(c.req.param('id'));
    if (!order) return c.html(problemPage('Order not found', 'There is no such order in this store.'), 404);
    const failedCartId = order.cartId;
    if (!failedCartId || order.status !== 'failed') return c.redirect(`/orders/${order.id}`, 303);
    try {
      const retry = await checkout.retry(failedCartId);
      await store.update(() => switchToRetry(order, failedCartId, retry.cartId));
      return c.redirect(retry.url, 303);
    } catch (err) {
      if (!(err instanceof HostedCheckoutError)) throw err;
      settings.log(`[demo store] retry refused for ${order.id}: ${err.code} ${err.describe()}`);
      return c.html(orderPage(order, undefined, err.describe()), err.status === null || err.status >= 500 ? 502 : 409);
    }
  });

  async function openCheckout(c: Context, order: StoreOrder, embedded = false): Promise<Response> {
    const orderUrl = `${base}/orders/${encodeURIComponent(order.id)}`;
    try {
      const cart = await checkout.createCart({
        orderId: order.id,
        store: { name: 'Demo Store', url: settings.publicUrl },
        currency: order.currency,
        country: 'FR',
        items: order.items.map((i) => {
          const product = findProduct(i.productId);
          return {
            title: i.title,
            description: product?.description ?? i.title,
            price: i.price,
            quantity: i.quantity,
            // Public https addresses, as in production: the checkout page loads images over https only.
            url: `${publicUrl}/products/${i.productId}`,
            image: `${publicUrl}/products/${i.productId}.png`,
            sku: i.productId,
          };
        }),
        successUrl: `${orderUrl}?return=success`,
        failureUrl: `${orderUrl}?return=failure`,
        ...(order.items.some((i) => findProduct(i.productId)?.shipLater) ? { captureMethod: 'manual' as const } : {}),
      });
      await store.update(() => {
        order.cartId = cart.cartId;
        order.checkoutError = null;
      });
      if (embedded && embedding) return c.redirect(`${embedding.storeUrl.replace(/\/+$/, '')}/orders/${encodeURIComponent(order.id)}/pay-here`, 303);
      return c.redirect(`${settings.checkoutBaseUrl.replace(/\/+$/, '')}/?token=${encodeURIComponent(cart.cartId)}`, 303);
    } catch (err) {
      if (!(err instanceof HostedCheckoutError)) throw err;
      settings.log(`[demo store] create-cart refused for ${order.id}: ${err.code} ${err.describe()}`);
      await store.update(() => {
        order.checkoutError = err.describe();
      });
      return c.html(orderPage(order, undefined), 502);
    }
  }

  // The owner's pages: the orders (with every customer's order) and refunds. The shop, a customer's own
  // order page (its return URL) and the webhook endpoint stay public.
  app.get('/login', (c) => c.html(loginPage(safeNext(c.req.query('next'), base))));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody<Record<string, string>>();
    const next = safeNext(form.next, base);
    // The connection's address: the store is reached directly. Behind a proxy, use the address it forwards.
    const address = getConnInfo(c).remote.address ?? 'unknown';
    if (owner.throttled(address)) return c.html(loginPage(next, 'Too many wrong passwords: wait a minute and try again.'), 429);
    if (!(await owner.signIn(c, String(form.password ?? ''), address))) return c.html(loginPage(next, 'Wrong password.'), 401);
    return c.redirect(next, 303);
  });
  app.post('/logout', (c) => {
    owner.signOut(c);
    return c.redirect('/', 303);
  });

  app.get('/orders', async (c) => {
    if (!(await owner.signedIn(c))) return c.redirect('/login?next=%2Forders', 303);
    return c.html(ordersPage(store));
  });

  app.get('/orders/:id', (c) => {
    const order = store.get(c.req.param('id'));
    if (!order) return c.html(problemPage('Order not found', 'There is no such order in this store.'), 404);
    return c.html(orderPage(order, c.req.query('return')));
  });

  /** Ships an authorized order: captures it; its order_updated (status paid) then updates the order. */
  app.post('/orders/:id/capture', async (c) => {
    if (!(await owner.signedIn(c))) return c.html(problemPage('Sign in required', 'Only the store owner can capture: sign in at /login.'), 401);
    const order = store.get(c.req.param('id'));
    if (!order?.cartId) return c.html(problemPage('Order not found', 'There is no authorized order with this id.'), 404);
    try {
      await checkout.capture(order.cartId);
      return c.redirect(`/orders#${order.id}`, 303);
    } catch (err) {
      if (!(err instanceof HostedCheckoutError)) throw err;
      return c.html(ordersPage(store, { [order.id]: err.describe() }), err.status === null || err.status >= 500 ? 502 : 422);
    }
  });

  app.post('/orders/:id/refunds', async (c) => {
    if (!(await owner.signedIn(c))) return c.html(problemPage('Sign in required', 'Only the store owner can refund: sign in at /login.'), 401);
    const order = store.get(c.req.param('id'));
    if (!order?.cartId) return c.html(problemPage('Order not found', 'There is no paid order with this id.'), 404);
    const form = await c.req.parseBody<Record<string, string>>();
    const amount = parseAmount(String(form.amount ?? ''), order.currency);
    const idempotencyKey = String(form.idempotencyKey ?? '');
    const reason = String(form.reason ?? '').trim() || undefined;
    if (amount === undefined) return c.html(ordersPage(store, { [order.id]: 'Enter the amount to refund, e.g. 5.00.' }), 422);
    if (!/^[0-9a-f-]{36}$/.test(idempotencyKey)) return c.html(ordersPage(store, { [order.id]: 'The form expired: reload the page and try again.' }), 422);
    try {
      const refund = await checkout.refund({ cartId: order.cartId, amount, reason, idempotencyKey });
      await store.update(() => {
        // The same key again (a resubmitted form) is the same refund: recorded once.
        if (order.refunds.some((r) => r.idempotencyKey === idempotencyKey)) return;
        // The webhook may have beaten the API's answer here.
        const confirmation = order.webhooks.find((w) => w.verified && w.refundId === refund.id);
        order.refunds.push({
          idempotencyKey,
          refundId: refund.id,
          amount: refund.amount,
          reason: reason ?? null,
          status: confirmation ? 'succeeded' : refund.status,
          requestedAt: new Date().toISOString(),
          confirmedAt: confirmation?.receivedAt ?? null,
        });
      });
      return c.redirect(`/orders#${order.id}`, 303);
    } catch (err) {
      if (!(err instanceof HostedCheckoutError)) throw err;
      return c.html(ordersPage(store, { [order.id]: err.describe() }), err.status === null || err.status >= 500 ? 502 : 422);
    }
  });

  app.post('/webhooks', bodyLimit({ maxSize: MAX_WEBHOOK_BYTES, onError: (c) => c.text('too large', 413) }), async (c) => {
    const rawBody = Buffer.from(await c.req.arrayBuffer());
    const outcome = await webhooks.receive(rawBody, c.req.header());
    if (outcome.status === 400) {
      settings.log(`[demo store] refused a webhook: ${outcome.reason}`);
      return c.text('signature not verified', 400);
    }
    const { event } = outcome;
    settings.log(`[demo store] ${event.event} #${event.sequence} for cart ${event.data.cartId}: ${event.data.status} (${outcome.result})`);
    return c.text('ok', 200);
  });

  if (accounting)
    app.post('/webhooks/accounting', bodyLimit({ maxSize: MAX_WEBHOOK_BYTES, onError: (c) => c.text('too large', 413) }), async (c) => {
      const outcome = await accounting.receive(Buffer.from(await c.req.arrayBuffer()), c.req.header());
      if (outcome.status === 400) {
        settings.log(`[demo store accounting] refused a webhook: ${outcome.reason}`);
        return c.text('refused', 400);
      }
      settings.log(`[demo store accounting] refund ${outcome.result}`);
      return c.text('ok', 200);
    });

  app.notFound((c) => c.html(problemPage('Not found', 'There is no such page in this store.'), 404));
  return app;
}

function quantitiesFrom(fields: Record<string, unknown>): Record<string, number> {
  const quantities: Record<string, number> = {};
  for (const p of PRODUCTS) {
    const value = Number(fields[`qty-${p.id}`] ?? 0);
    quantities[p.id] = Number.isInteger(value) ? Math.min(Math.max(value, 0), MAX_QUANTITY) : 0;
  }
  return quantities;
}

/** Serves the store on `port` until `close()`. */
export async function startDemoStore(settings: DemoStoreSettings & { port: number; hostname?: string }): Promise<{ url: string; close: () => Promise<void> }> {
  const app = createDemoStoreApp(settings);
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: settings.port, ...(settings.hostname ? { hostname: settings.hostname } : {}) }, (info: AddressInfo) =>
      resolve({
        url: `http://${settings.hostname ?? 'localhost'}:${info.port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}
