import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MerchantSite {
  /** On a `.localhost` name, which Chromium resolves to loopback: the cart schema wants a domain. */
  baseUrl: string;
  /** Where the merchant takes webhooks (a loopback address: sandbox delivers there). */
  webhookUrl: string;
  /** Every page the customer landed on, as full URLs. */
  landings: URL[];
  /** Everything that happened at the merchant, in order: page landings and webhook acknowledgements. */
  timeline: string[];
  close(): Promise<void>;
}

/**
 * The merchant, for real: its return pages (the redirect after payment must land somewhere) and its
 * webhook endpoint, which acknowledges after `webhookAckDelayMs` like a merchant doing a little work.
 */
export async function startMerchantSite(options: { webhookAckDelayMs?: number } = {}): Promise<MerchantSite> {
  const landings: URL[] = [];
  const timeline: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (req.method === 'POST' && url.pathname === '/webhooks') {
      req.resume().on('end', () =>
        setTimeout(() => {
          timeline.push(`webhook ${String(req.headers['x-client-event'])}`);
          res.writeHead(200).end();
        }, options.webhookAckDelayMs ?? 0),
      );
      return;
    }
    landings.push(url);
    timeline.push(`landing ${url.pathname}`);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Merchant</title><h1>Back at the merchant: ${url.pathname === '/success' ? 'thank you' : 'payment not completed'}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://shop.localhost:${port}`,
    webhookUrl: `http://127.0.0.1:${port}/webhooks`,
    landings,
    timeline,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
