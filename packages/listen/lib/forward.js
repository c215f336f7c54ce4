import http from 'node:http';
import https from 'node:https';
import { deliveryHeaders } from './sign.js';

/** The API's default delivery timeout (docs/webhooks.md: any 2xx within 15 s). */
const TIMEOUT_MS = 15_000;
/** Of a refusal, the start of the answer is shown: enough for an error message, not a page. */
const EXCERPT_CHARS = 200;

/**
 * One POST of the event to the developer's endpoint, signed with `secret` as a delivery's first
 * attempt is, over the body's exact bytes, with no connection reuse as a delivery does. Unlike a
 * delivery, it goes wherever the developer points it, private addresses included: it runs on their
 * machine. Resolves `{status, excerpt, ms}` or `{error, ms}`; never throws.
 */
export function forwardEvent({ url, eventId, event, rawBody, secret }) {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const headers = deliveryHeaders({ eventId, event, rawBody, secret, timestampSeconds: Math.floor(Date.now() / 1000) });
  return new Promise((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(rawBody)) },
      agent: false,
      timeout: TIMEOUT_MS,
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    request.on('error', (err) => resolve({ error: err.code ?? err.message, ms: ms() }));
    request.on('response', (response) => {
      let excerpt = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        if (excerpt.length < EXCERPT_CHARS) excerpt += chunk;
      });
      const answered = () => resolve({ status: response.statusCode ?? 0, excerpt: excerpt.slice(0, EXCERPT_CHARS), ms: ms() });
      response.on('end', answered);
      response.on('error', answered);
    });
    request.end(rawBody);
  });
}
