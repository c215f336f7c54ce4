import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../core/orders/order-schema.js';
import { postWebhook } from '../../core/webhooks/http-post.js';
import { cartEvents } from '../support/cart-events.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { merchantApi } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** What our resolver or a socket would say: none of it may reach a merchant, stored or shown. */
const NETWORK_WORDS = [
  'getaddrinfo',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'socket hang up',
  'wrong version number',
  'SSL',
  'no-such-internal-host',
  '10.255.255.1',
  'connect ',
];

/** A TCP service that drops every connection at once: no HTTP answer, no TLS, nothing but a reset. */
async function startDroppingServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: one the system gave us, closed again. */
async function closedPort(): Promise<number> {
  const dropping = await startDroppingServer();
  await dropping.close();
  return dropping.port;
}

describe("a failed webhook delivery is told as a category in our own words, never in our resolver's or socket's", () => {
  // One attempt per event (the schedule's first), so each case ends in `failed` with that attempt.
  const stack = useTestStack({ WEBHOOK_RETRY_SCHEDULE_MS: '0', WEBHOOK_TIMEOUT_MS: '1000', TRUST_PROXY: '1' });
  let answering: WebhookReceiver;
  let slow: WebhookReceiver;
  let dropping: Awaited<ReturnType<typeof startDroppingServer>>;
  let refusedPort: number;
  beforeAll(async () => {
    answering = await startWebhookReceiver(() => ({ status: 503, body: 'down for maintenance' }));
    slow = await startWebhookReceiver(() => ({ status: 200, delayMs: 3000 }));
    dropping = await startDroppingServer();
    refusedPort = await closedPort();
  });
  afterAll(async () => {
    await Promise.all([answering?.close(), slow?.close(), dropping?.close()]);
  });

  const cases: Array<{ error: string; url: () => string; status?: number; excerpt?: string; host?: string }> = [
    // A name that does not resolve and one that resolves where webhooks may not go are one category: two
    // would tell whoever registers a URL which of our internal names exist.
    { error: 'unreachable_host', host: 'a name that does not resolve', url: () => 'http://no-such-internal-host.invalid/webhooks' },
    { error: 'connection_refused', url: () => `http://127.0.0.1:${refusedPort}/webhooks` },
    { error: 'timeout', url: () => slow.url },
    // https to a server that speaks plain http: the TLS handshake fails.
    { error: 'tls', url: () => `https://127.0.0.1:${answering.port}/webhooks` },
    { error: 'network', url: () => `http://127.0.0.1:${dropping.port}/webhooks` },
    // A private address, which no sandbox may reach: refused before any connection.
    { error: 'unreachable_host', host: 'a private address', url: () => 'http://10.255.255.1/webhooks' },
    // An answer, not an error of ours: its status and its body are the endpoint's own.
    { error: 'http_status', url: () => answering.url, status: 503, excerpt: 'down for maintenance' },
  ];

  const named = cases.map((c) => ({ ...c, name: c.host ? `${c.error} (${c.host})` : c.error }));
  it.each(named)('$name: stored and shown as such in the Order API and the dashboard', async ({ error, url, status, excerpt }) => {
    const merchant = await stack.createMerchant({ webhookUrl: url() });
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
    const { eventId } = await cartEvents(stack).recordCartEvent({ cartId, event: 'order_cancelled', status: 'cancelled' });
    const [stored] = await waitFor(
      async () => {
        const rows = await stack.db<{ error_class: string | null; http_status: number | null; response_excerpt: string | null }[]>`
          select error_class, http_status, response_excerpt from webhook_attempts where event_id = ${eventId} and error_class is distinct from 'no_outcome'`;
        return rows.length ? rows : undefined;
      },
      { what: `the attempt of the ${error} case` },
    );
    expect(stored).toEqual({ error_class: error, http_status: status ?? null, response_excerpt: excerpt ?? null });

    const res = await merchantApi(stack, merchant.apiKey).get(`/orders/${cartId}`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const [webhook] = (JSON.parse(text) as Order).webhooks;
    expect(webhook!.attempts).toEqual([
      {
        endpointId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        attemptedAt: expect.any(String),
        responseStatus: status ?? null,
        responseExcerpt: excerpt ?? null,
        error,
        durationMs: expect.any(Number),
      },
    ]);
    for (const word of NETWORK_WORDS) expect(text, `the order names "${word}"`).not.toContain(word);

    const dashboard = dashboardClient(stack.checkoutUrl);
    expect((await dashboard.signIn(merchant.apiKey)).status).toBe(303);
    const page = await dashboard.get(`/dashboard/orders/${encodeURIComponent(cartId)}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(status ? `HTTP ${status}` : 'no answer: ');
    for (const word of NETWORK_WORDS) expect(page.body, `the dashboard names "${word}"`).not.toContain(word);
  });

  it('postWebhook itself says the category and nothing else a merchant could see, a cancelled attempt included', async () => {
    const targets = { environment: 'sandbox', allowLoopback: true } as const;
    const post = (url: string, signal?: AbortSignal) => postWebhook({ url, headers: {}, body: '{}', timeoutMs: 1000, targets, ...(signal ? { signal } : {}) });
    // The slow receiver answers after 3 s: the attempt is cancelled while it waits.
    const cancelled = AbortSignal.timeout(100);
    const outcomes = await Promise.all([
      post('http://no-such-internal-host.invalid/webhooks'),
      post(`http://127.0.0.1:${refusedPort}/webhooks`),
      post(`https://127.0.0.1:${answering.port}/webhooks`),
      post(`http://127.0.0.1:${dropping.port}/webhooks`),
      post(slow.url, cancelled),
    ]);
    expect(outcomes.map((o) => Object.keys(o).sort())).toEqual(Array(5).fill(['errorClass', 'errorDetail', 'latencyMs']));
    expect(outcomes.map((o) => o.errorClass)).toEqual(['unreachable_host', 'connection_refused', 'tls', 'network', 'cancelled']);
    // A name that resolves, to an address a deployed sandbox may not reach, is told as one that does not.
    const deployed = await postWebhook({
      url: 'http://localhost/webhooks',
      headers: {},
      body: '{}',
      timeoutMs: 1000,
      targets: { environment: 'sandbox', allowLoopback: false },
    });
    expect(deployed.errorClass).toBe(outcomes[0].errorClass);
    // The detail is for operators' logs: what the resolver said, where it said it.
    expect(outcomes[0].errorDetail).toContain('ENOTFOUND');
  });
});
