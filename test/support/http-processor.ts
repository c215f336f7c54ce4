import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  ProcessorUnavailableError,
  type CaptureResult,
  type ChargeResult,
  type LookupResult,
  type PaymentProcessor,
  type RefundResult,
} from '../../core/checkout/payment-processor.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';

/** What the test acquirer did for one idempotency key (one cart: the cartId is the key). */
export interface AcquirerRecord {
  requests: number;
  /** Approved charges made for this key. A processor honouring keys makes at most one; the test checks that. */
  approvedCharges: number;
  result?: ChargeResult;
  voided: boolean;
  /** Captures of a manual authorization, by capture idempotency key (one capture per key). */
  captures: Map<string, number>;
  /** Refunds made against this key's charge, by refund idempotency key (one refund per key). */
  refunds: Map<string, number>;
}

/**
 * A payment processor outside the worker process, so that a worker can be killed after the acquirer
 * charged and before the answer reached the activity, and what was charged is still known. It honours
 * idempotency keys as a real one does; `beforeAnswer` lets a test act (kill the worker) at that moment
 * and then drop the answer.
 */
export async function startTestAcquirer(options: { beforeAnswer?: (idempotencyKey: string, result: ChargeResult) => Promise<'answer' | 'drop'> } = {}) {
  const records = new Map<string, AcquirerRecord>();
  const sockets = new Set<Socket>();
  const recordOf = (key: string) => {
    let record = records.get(key);
    if (!record) records.set(key, (record = { requests: 0, approvedCharges: 0, voided: false, captures: new Map(), refunds: new Map() }));
    return record;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          idempotencyKey: string;
          pan?: string;
          chargeId?: string;
          amount?: number;
          captureKey?: string;
        };
        let answer: unknown;
        if (req.url === '/refund') {
          const charged = [...records.values()].find((r) => r.result?.outcome === 'approved' && r.result.chargeId === body.chargeId);
          // Any amount is refunded: holding refunds to what was captured is the product's job, measured here.
          if (charged && !charged.refunds.has(body.idempotencyKey)) charged.refunds.set(body.idempotencyKey, body.amount!);
          const refunded: RefundResult = charged
            ? { outcome: 'refunded', refundId: `re_${body.idempotencyKey}` }
            : { outcome: 'declined', declineCode: 'charge_not_found' };
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(refunded));
        }
        const record = recordOf(body.idempotencyKey);
        if (req.url === '/charge') {
          record.requests++;
          if (!record.result) {
            record.result =
              body.pan === SANDBOX_CARDS.approved
                ? { outcome: 'approved', chargeId: `ch_${body.idempotencyKey}` }
                : { outcome: 'declined', declineCode: 'card_declined' };
            if (record.result.outcome === 'approved') record.approvedCharges++;
          }
          if (options.beforeAnswer && (await options.beforeAnswer(body.idempotencyKey, record.result)) === 'drop') return void res.destroy();
          answer = record.result;
        } else if (req.url === '/lookup') {
          answer = record.result ? { found: true, result: record.result } : { found: false };
        } else if (req.url === '/capture') {
          // A released hold cannot be captured: the product must never ask (measured by the race suite).
          const held = record.result?.outcome === 'approved' && !record.voided;
          if (held && !record.captures.has(body.captureKey!)) record.captures.set(body.captureKey!, body.amount!);
          answer = (held ? { outcome: 'captured' } : { outcome: 'declined', declineCode: 'capture_declined' }) satisfies CaptureResult;
        } else if (req.url === '/void') {
          record.voided = true;
          answer = {};
        } else {
          return void res.writeHead(404).end();
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      })();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    /** What the acquirer refunded of the charge made under this key. */
    refundedOf: (key: string) => [...(records.get(key)?.refunds.values() ?? [])].reduce((sum, amount) => sum + amount, 0),
    /** The most approved charges the acquirer made for any one key. */
    maxChargesPerCart: () => Math.max(0, ...[...records.values()].map((r) => r.approvedCharges)),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type TestAcquirer = Awaited<ReturnType<typeof startTestAcquirer>>;

/**
 * The worker's side: a PaymentProcessor that calls the test acquirer; no answer is an outage, as with
 * a real one. `url` may be read late, when the processor is wired before the acquirer listens.
 */
export function testAcquirerProcessor(url: string | (() => string)): PaymentProcessor {
  const call = async <T>(path: string, body: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${typeof url === 'string' ? url : url()}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new ProcessorUnavailableError(`test acquirer: no answer (${(error as Error).name})`);
    }
    if (!res.ok) throw new ProcessorUnavailableError(`test acquirer: HTTP ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    name: 'test-acquirer',
    charge: ({ idempotencyKey, card }) => call<ChargeResult>('/charge', { idempotencyKey, pan: card.pan }),
    lookup: ({ idempotencyKey }) => call<LookupResult>('/lookup', { idempotencyKey }),
    void: async ({ idempotencyKey }) => {
      await call('/void', { idempotencyKey });
    },
    // The charge's key is the chargeId's suffix (ch_<key>): the acquirer keeps captures with their charge.
    capture: ({ idempotencyKey, chargeId, amount }) =>
      call<CaptureResult>('/capture', { idempotencyKey: chargeId.replace(/^ch_/, ''), captureKey: idempotencyKey, amount }),
    refund: ({ idempotencyKey, chargeId, amount }) => call<RefundResult>('/refund', { idempotencyKey, chargeId, amount }),
  };
}
