import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { createMerchant, type CreatedMerchant } from '../core/merchants.js';
import { verifyWebhook } from '../core/webhooks/verify.js';

export const DEMO_MERCHANT_PORT = 3002;
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The sandbox merchant "Demo Store", created on the first `npm start` and reused after; its
 * credentials are written to `file` (the merchant's own copy, as a real merchant would keep it).
 */
export async function ensureDemoMerchant(deps: { db: Db; config: Config }, file: string, webhookUrl: string): Promise<CreatedMerchant> {
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as CreatedMerchant;
    const [row] = await deps.db`select 1 from merchants where platform_uuid = ${saved.platformUuid} and status = 'active'`;
    if (row) return saved;
  }
  const merchant = await createMerchant(deps.db, deps.config.dataEncryptionKey, { name: 'Demo Store', environment: 'sandbox', webhookUrl });
  writeFileSync(file, JSON.stringify(merchant, null, 2) + '\n', { mode: 0o600 });
  return merchant;
}

/**
 * The Demo Store's webhook endpoint, as the README tells merchants to write one: verify the signature
 * on the raw body, answer 200 at once, skip event ids already seen, do the work afterwards.
 */
export async function startDemoMerchantReceiver(options: { port: number; secret: string; log: (line: string) => void }): Promise<{ close(): Promise<void> }> {
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks') return void res.writeHead(404).end();
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
      if (seen.has(event.id)) return options.log(`[demo merchant] ${event.id} again (attempt ${String(req.headers['x-client-delivery-attempt'])}): already handled`);
      seen.add(event.id);
      setImmediate(() =>
        options.log(`[demo merchant] ${event.event} #${event.sequence} for cart ${event.data.cartId}: ${event.data.status}, ${event.data.amount} ${event.data.currency}, extra ${JSON.stringify(event.data.extra)}`),
      );
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, resolve));
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}
