import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMBED_SCRIPT_INTEGRITY } from '../../web/embed-script.js';

export interface EmbeddingStore {
  port: number;
  /** The store's page on `host` (127.0.0.1, or a name Chromium maps to loopback), mounting the checkout of `cartId`. */
  pageUrl(host: string, cartId: string, options?: { forger?: string }): string;
  /** Where carts send the customer back: on another name than the store's page, as a merchant's success page may be. */
  returnUrls(): { successUrl: string; failureUrl: string };
  close(): Promise<void>;
}

const PROTOCOL = { protocol: 'hosted-checkout', version: 1 };

/**
 * A merchant's store page with the embedded checkout, as docs/checkout-page.md tells a merchant to write
 * it: embed.js pinned by its integrity, one control before the frame and one after, every message the
 * frame sent kept in `window.embedEvents` (and handed to `window.recordEmbedEvent` if the test exposed it). `forger` adds a frame from that origin which posts a forged
 * `completed`, `resize` and `navigate` to the store's page.
 */
export async function startEmbeddingStore(checkoutUrl: string): Promise<EmbeddingStore> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url.pathname === '/store') {
      const cartId = (url.searchParams.get('cart') ?? '').replace(/[^A-Za-z0-9_-]/g, '');
      const forger = url.searchParams.get('forger');
      res.end(`<!doctype html><html lang="en"><head><title>Store</title>
<script src="${checkoutUrl}/embed.js" integrity="${EMBED_SCRIPT_INTEGRITY}" crossorigin="anonymous"></script></head>
<body><main><h1>Your basket</h1><button type="button" id="back">Back to basket</button>
<div id="checkout"></div><a href="/help" id="help">Help</a>
${forger ? `<iframe title="advert" src="${forger}/forger" id="forger"></iframe>` : ''}</main>
<script>
window.embedEvents = [];
var element = document.getElementById('checkout');
element.addEventListener('hosted-checkout', function (event) {
  window.embedEvents.push(event.detail);
  if (window.recordEmbedEvent) window.recordEmbedEvent(event.detail);
});
window.embedded = HostedCheckout.mount(element, { cartId: ${JSON.stringify(cartId)} });
</script></body></html>`);
      return;
    }
    if (url.pathname === '/forger') {
      const forged = [
        { ...PROTOCOL, type: 'completed', cartId: 'forged', status: 'paid' },
        { ...PROTOCOL, type: 'resize', height: 7 },
        { ...PROTOCOL, type: 'navigate', url: `http://${req.headers.host}/forged` },
      ];
      res.end(`<!doctype html><title>advert</title><script>
window.addEventListener('message', function () {});
setInterval(function () { ${JSON.stringify(forged)}.forEach(function (m) { parent.postMessage(m, '*'); }); }, 200);
</script>`);
      return;
    }
    res.end(`<!doctype html><title>Store</title><h1>At the store: ${url.pathname}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    pageUrl: (host, cartId, options = {}) =>
      `http://${host}:${port}/store?cart=${cartId}${options.forger ? `&forger=${encodeURIComponent(options.forger)}` : ''}`,
    returnUrls: () => ({ successUrl: `http://shop.localhost:${port}/success`, failureUrl: `http://shop.localhost:${port}/failure` }),
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
