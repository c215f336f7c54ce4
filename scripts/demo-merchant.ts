import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { findActiveMerchant } from '../core/merchants/merchant-store.js';
import { registerMerchant, type CreatedMerchant } from '../core/merchants/merchants.js';
import { verifyWebhook } from '../core/webhooks/verify.js';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The sandbox merchant "Demo Store", created on the first `npm start` and reused after; its
 * credentials are written to `file` (the merchant's own copy, as a real merchant would keep it).
 */
export async function ensureDemoMerchant(deps: { db: Db; config: Config }, file: string, webhookUrl: string): Promise<CreatedMerchant> {
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as CreatedMerchant;
    if (await findActiveMerchant(deps.db, saved.platformUuid, 'sandbox')) return saved;
  }
  const merchant = await registerMerchant(deps.db, deps.config.keyring, { name: 'Demo Store', environment: 'sandbox', webhookUrl });
  writeFileSync(file, JSON.stringify(merchant, null, 2) + '\n', { mode: 0o600 });
  return merchant;
}

/** The Demo Store's return pages; the customer's checkout sends them here. */
export function demoReturnUrls(port: number) {
  return { successUrl: `http://demo.localhost:${port}/success`, failureUrl: `http://demo.localhost:${port}/failure` };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * What a merchant's return page should do: trust the webhooks, not the redirect. It shows what the
 * webhooks said about the cart so far.
 */
function returnPage(path: string, cartId: string, latest: { event: string; status: string } | undefined): string {
  const outcome = latest
    ? `Our webhooks say: <strong>${escapeHtml(latest.status)}</strong> (${escapeHtml(latest.event)}).`
    : 'No webhook for this cart yet: the order is not confirmed until one arrives.';
  return `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Demo Store</title>
<h1>Demo Store</h1><p>${path === '/success' ? 'Back from checkout: payment reported successful.' : 'Back from checkout: payment not completed.'}</p>
<p>Cart <code>${escapeHtml(cartId)}</code>. ${outcome}</p>`;
}

/**
 * The Demo Store's webhook endpoint, as the README tells merchants to write one: verify the signature
 * on the raw body, answer 200 at once, skip event ids already seen, do the work afterwards. It also
 * serves the return pages of demoReturnUrls().
 */
export async function startDemoMerchantReceiver(options: {
  port: number;
  secret: string;
  log: (line: string) => void;
}): Promise<{ close: () => Promise<void> }> {
  const seen = new Set<string>();
  const latestByCart = new Map<string, { event: string; status: string }>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://demo.localhost');
    if (req.method === 'GET' && (url.pathname === '/success' || url.pathname === '/failure')) {
      const cartId = url.searchParams.get('cartId') ?? '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" });
      return void res.end(returnPage(url.pathname, cartId, latestByCart.get(cartId)));
    }
    if (req.method !== 'POST' || url.pathname !== '/webhooks') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      const result = verifyWebhook(Buffer.concat(chunks), req.headers, options.secret);
      if (!result.valid) {
        options.log(`[demo merchant] rejected a webhook: ${result.reason}`);
        return void res.writeHead(400).end();
      }
      res.writeHead(200).end();
      const { event } = result;
      if (seen.has(event.id))
        return options.log(`[demo merchant] ${event.id} again (attempt ${String(req.headers['x-client-delivery-attempt'])}): already handled`);
      seen.add(event.id);
      latestByCart.set(event.data.cartId, { event: event.event, status: event.data.status });
      setImmediate(() =>
        options.log(
          `[demo merchant] ${event.event} #${event.sequence} for cart ${event.data.cartId}: ${event.data.status}, ${event.data.amount} ${event.data.currency}, extra ${JSON.stringify(event.data.extra)}`,
        ),
      );
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, resolve));
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
