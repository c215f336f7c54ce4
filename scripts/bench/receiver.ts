import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WebhookEventName } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { registerMerchant, type CreatedMerchant } from '../../core/onboarding/registration.js';

export interface VerifiedDelivery {
  id: string;
  event: WebhookEventName;
  cartId: string;
  /** performance.now() and Date.now() when the body was read and its signature verified. */
  at: number;
  wallAt: number;
}

/**
 * The merchant's endpoint: verifies each delivery's signature over the raw bytes, as a merchant must,
 * and acknowledges it. Tells waiters when a cart's event arrives; counts what arrived more than once.
 * Any GET is the merchant's return page (successUrl, failureUrl), where the customer lands.
 */
export async function startVerifyingReceiver() {
  let secret = '';
  const firsts = new Map<string, VerifiedDelivery>();
  const byCartEvent = new Map<string, VerifiedDelivery>();
  const waiters = new Map<string, (delivery: VerifiedDelivery) => void>();
  const counts = { verified: 0, duplicates: 0, invalid: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Bench Store</title><h1>Back at the store</h1>');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const verified = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      if (!verified.valid) {
        counts.invalid++;
        res.writeHead(400).end();
        return;
      }
      const { id, event, data } = verified.event;
      const delivery = { id, event, cartId: data.cartId, at: performance.now(), wallAt: Date.now() };
      if (firsts.has(id)) counts.duplicates++;
      else {
        counts.verified++;
        firsts.set(id, delivery);
        const key = `${event}:${data.cartId}`;
        byCartEvent.set(key, delivery);
        waiters.get(key)?.(delivery);
        waiters.delete(key);
      }
      res.writeHead(204).end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    /** The store's return pages, on a `.localhost` name (the cart schema wants a domain; Chromium resolves it to loopback). */
    storeUrl: `http://bench-store.localhost:${port}`,
    counts,
    /** The merchant's secret, known once the merchant is registered with this receiver's URL. */
    useSecret(value: string) {
      secret = value;
    },
    /** The first verified delivery of `event` for `cartId`. */
    delivered: (event: WebhookEventName, cartId: string) => byCartEvent.get(`${event}:${cartId}`),
    /** Resolves when `event` for `cartId` has been verified (at once if it already was). */
    waitFor(event: WebhookEventName, cartId: string): Promise<VerifiedDelivery> {
      const already = byCartEvent.get(`${event}:${cartId}`);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiters.set(`${event}:${cartId}`, resolve));
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type VerifyingReceiver = Awaited<ReturnType<typeof startVerifyingReceiver>>;

/** A sandbox merchant whose webhooks go to `receiver`, which verifies them with the merchant's secret. */
export async function registerReceivingMerchant(receiver: VerifyingReceiver, deps: { db: Db; config: Config }, name: string): Promise<CreatedMerchant> {
  const { db, config } = deps;
  const merchant = await registerMerchant(db, config.keyring, { name, environment: 'sandbox', webhookUrl: receiver.url }, config.webhooks);
  receiver.useSecret(merchant.webhookSecret);
  return merchant;
}
