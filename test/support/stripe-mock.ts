import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * stripe-mock answers every PaymentIntent with one fixture, in status `requires_payment_method` (a
 * declined confirmation). The test run serves a copy of its fixtures in which that intent succeeded,
 * so a checkout through the Stripe adapter can be paid; the declines are unit-tested on recorded answers.
 */
export function writeApprovingFixtures(source: string, target: string): void {
  const fixtures = JSON.parse(readFileSync(source, 'utf8')) as { resources: Record<string, Record<string, unknown>> };
  const intent = fixtures.resources.payment_intent!;
  Object.assign(intent, { status: 'succeeded', last_payment_error: null, amount_received: intent.amount, canceled_at: null, latest_charge: 'ch_stripe_mock' });
  writeFileSync(target, JSON.stringify(fixtures));
}

export interface ForwardedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
}

/** A pass-through in front of stripe-mock that records every request as it went over the wire, and stripe-mock's status. */
export async function startRecordingProxy(
  target: string,
): Promise<{ url: string; requests: Array<ForwardedRequest & { status: number }>; close: () => Promise<void> }> {
  const requests: Array<ForwardedRequest & { status: number }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<
        string,
        string
      >;
      fetch(new URL(req.url ?? '/', target), { method: req.method, headers, ...(body.length ? { body } : {}) })
        .then(async (answer) => {
          const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
          requests.push({ method: req.method ?? '', path: req.url ?? '', idempotencyKey, body: body.toString('utf8'), status: answer.status });
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
