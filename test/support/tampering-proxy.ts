import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does to what it relays: nothing, one byte of checkout.js, or the CSP without `frame-ancestors`. */
export type Tampering = 'none' | 'checkout-script-byte' | 'drop-frame-ancestors';

/**
 * An HTTP proxy in front of a running stack's checkout page: the stack reads its assets once at start,
 * so a change to what a browser receives is made here, between the page and its visitor, as a
 * compromised CDN or edge would make it.
 */
export async function startTamperingProxy(target: string) {
  let tampering: Tampering = 'none';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && !['host', 'connection', 'accept-encoding', 'content-length'].includes(name)) headers.set(name, value);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
        redirect: 'manual',
      });
      let body = Buffer.from(await upstream.arrayBuffer());
      if (tampering === 'checkout-script-byte' && /^\/assets\/checkout\.[^/]*\.js$/.test(req.url ?? '')) {
        body = Buffer.from(body);
        body[body.length - 1] = body[body.length - 1]! ^ 0x01;
      }
      const out: Record<string, string | string[]> = {};
      upstream.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'set-cookie'].includes(name)) out[name] = value;
      });
      const cookies = upstream.headers.getSetCookie();
      if (cookies.length > 0) out['set-cookie'] = cookies;
      const csp = out['content-security-policy'];
      if (tampering === 'drop-frame-ancestors' && typeof csp === 'string')
        out['content-security-policy'] = csp
          .split(';')
          .filter((d) => !d.trim().startsWith('frame-ancestors'))
          .join(';');
      res.writeHead(upstream.status, { ...out, 'content-length': String(body.length) }).end(body);
    })().catch((err: unknown) => res.writeHead(502).end(String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tamper(next: Tampering) {
      tampering = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
