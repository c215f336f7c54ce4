import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MerchantSite {
  /** On a `.localhost` name, which Chromium resolves to loopback: the cart schema wants a domain. */
  baseUrl: string;
  /** Every page the customer landed on, as full URLs. */
  landings: URL[];
  close(): Promise<void>;
}

/** The merchant's return pages, for real: the redirect after payment must land somewhere. */
export async function startMerchantSite(): Promise<MerchantSite> {
  const landings: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    landings.push(url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Merchant</title><h1>Back at the merchant: ${url.pathname === '/success' ? 'thank you' : 'payment not completed'}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://shop.localhost:${port}`,
    landings,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
