import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  rawBody: string;
  at: number;
  /** The status it was answered with, once answered. */
  answered?: number;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer after this long (longer than the delivery timeout = a timeout). */
  delayMs?: number;
}

/**
 * A merchant's webhook endpoint, for real: a node:http server on a free port. It records every
 * request, answers as `reply` says (once its promise settles, for an endpoint that hangs until the
 * test lets it answer), and — like a well-behaved merchant — processes each event id once.
 */
export async function startWebhookReceiver(reply: (request: ReceivedRequest, nth: number) => Reply | Promise<Reply> = () => ({ status: 200 }), port = 0) {
  const requests: ReceivedRequest[] = [];
  const processed = new Map<string, ReceivedRequest>();
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = { headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(received);
      const answering = reply(received, requests.length);
      const send = (answer: Reply) => {
        if (res.destroyed) return;
        const id = String(req.headers['webhook-id']);
        received.answered = answer.status;
        if (answer.status >= 200 && answer.status < 300 && !processed.has(id)) processed.set(id, received);
        res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      };
      void Promise.resolve(answering).then((answer) => {
        if (answer.delayMs) setTimeout(() => send(answer), answer.delayMs);
        else send(answer);
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return {
    port: actualPort,
    url: `http://127.0.0.1:${actualPort}/webhooks`,
    requests,
    /** Events the receiver acknowledged, by id: what an idempotent merchant processed. */
    processed,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
