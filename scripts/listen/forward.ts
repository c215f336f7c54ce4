import http from 'node:http';
import https from 'node:https';
import type { WebhookEventName } from '../../core/webhooks/events.js';
import { webhookHeaders } from '../../core/webhooks/signing.js';

/** A deployment's default WEBHOOK_TIMEOUT_MS (docs/webhooks.md: any 2xx within 15 s). */
const TIMEOUT_MS = 15_000;
/** Of a refusal, the start of the answer is shown: enough for an error message, not a page. */
const EXCERPT_CHARS = 200;

export type ForwardOutcome = { status: number; excerpt: string; ms: number } | { error: string; ms: number };

/**
 * One POST of the event to the developer's endpoint, signed with `secret`: the headers a delivery
 * carries (core/webhooks/signing.ts webhookHeaders, attempt 1, a fresh timestamp) over the body's
 * exact bytes, with node:http and no connection reuse as a delivery does (core/webhooks/http-post.ts).
 * Unlike a delivery, it goes wherever the developer points it, private addresses included: it runs on
 * their machine, so there is no network of ours to protect. Never throws.
 */
export function forwardEvent(input: { url: URL; eventId: string; event: WebhookEventName; rawBody: string; secret: string }): Promise<ForwardOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const headers = webhookHeaders({
    eventId: input.eventId,
    event: input.event,
    attempt: 1,
    rawBody: input.rawBody,
    secrets: [input.secret],
    timestampSeconds: Math.floor(Date.now() / 1000),
  });
  return new Promise((resolve) => {
    const client = input.url.protocol === 'https:' ? https : http;
    const request = client.request(input.url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(input.rawBody)) },
      agent: false,
      timeout: TIMEOUT_MS,
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    request.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, ms: ms() }));
    request.on('response', (response) => {
      let excerpt = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (excerpt.length < EXCERPT_CHARS) excerpt += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, excerpt: excerpt.slice(0, EXCERPT_CHARS), ms: ms() }));
      response.on('error', () => resolve({ status: response.statusCode ?? 0, excerpt: excerpt.slice(0, EXCERPT_CHARS), ms: ms() }));
    });
    request.end(input.rawBody);
  });
}
