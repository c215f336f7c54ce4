import http from 'node:http';
import https from 'node:https';
import type { NoAnswerError } from '../outbound/delivery-errors.js';
import { classifyNoAnswer } from '../outbound/no-answer.js';
import { assertConnectable, BlockedAddressError, guardedLookup, type WebhookTargets } from '../outbound/url-safety.js';

/** At most this much of a merchant's answer is read and kept. */
export const RESPONSE_EXCERPT_BYTES = 20 * 1024;

export interface PostOutcome {
  /** Undefined when no HTTP answer came back; `errorClass` says why. */
  status?: number;
  /** Why there was no answer: all a merchant is told of it (core/outbound/delivery-errors.ts). */
  errorClass?: NoAnswerError;
  /**
   * For operators' logs only, never stored or shown to a merchant: the error as Node gave it (what
   * our resolver answered, the address a socket tried, a refused address), cut to 500 characters.
   */
  errorDetail?: string;
  retryAfter?: string;
  /** The start of the endpoint's own answer; absent when there was none. */
  excerpt?: string;
  latencyMs: number;
}

/** The failure as an outcome: its category, and what Node said of it for the log line only. */
const failure = (err: unknown): Omit<PostOutcome, 'latencyMs'> => {
  const error = err as NodeJS.ErrnoException;
  return { errorClass: classifyNoAnswer(error), errorDetail: (err instanceof BlockedAddressError ? err.detail : String(error.message)).slice(0, 500) };
};

/**
 * One POST with node:http rather than fetch, because only node:http lets us validate the address we
 * connect to (custom lookup). Redirects are never followed (a 3xx is just a status); the whole
 * exchange, body included, is bounded by `timeoutMs`; the answer is read up to RESPONSE_EXCERPT_BYTES.
 * Never throws: every failure becomes an outcome.
 */
export function postWebhook(input: {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** What this merchant's webhooks may reach (url-safety.ts webhookTargets), checked before and at connect. */
  targets: WebhookTargets;
  signal?: AbortSignal;
}): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<PostOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener('abort', onAbort);
      resolve({ ...outcome, latencyMs: elapsed() });
    };
    const fail = (err: NodeJS.ErrnoException) => finish(failure(err));

    let url: URL;
    try {
      url = new URL(input.url);
      assertConnectable(url, input.targets);
    } catch (err) {
      // No timer or request exists yet.
      settled = true;
      resolve({ ...failure(err), latencyMs: elapsed() });
      return;
    }

    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
      lookup: guardedLookup(input.targets),
      agent: false,
    });
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`no complete answer within ${input.timeoutMs} ms`), { name: 'TimeoutError' });
      request.destroy(err);
      fail(err);
    }, input.timeoutMs);
    const onAbort = () => {
      const err = Object.assign(new Error('delivery cancelled'), { name: 'AbortError' });
      request.destroy(err);
      fail(err);
    };
    input.signal?.addEventListener('abort', onAbort);

    request.on('error', fail);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () => {
        const retryAfter = response.headers['retry-after'];
        finish({ status: response.statusCode, excerpt: Buffer.concat(chunks).toString('utf8').replaceAll('\0', ''), ...(retryAfter ? { retryAfter } : {}) });
        response.destroy();
      };
      response.on('data', (chunk: Buffer) => {
        const room = RESPONSE_EXCERPT_BYTES - kept;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
        // The status is known; the rest of a large body is not worth waiting for.
        if (kept >= RESPONSE_EXCERPT_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(input.body);
  });
}
