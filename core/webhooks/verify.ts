import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEventBody } from './events.js';
import { secretKey } from './signing.js';

/**
 * The merchant's side: checks a delivery's signature and freshness before trusting its body. Pass the
 * raw body exactly as received (not re-serialized JSON) and every secret currently live.
 */

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export type VerifyResult = { valid: true; event: WebhookEventBody } | { valid: false; reason: string };

export interface VerifyOptions {
  /** How far the timestamp may be from now, either way. */
  toleranceSeconds?: number;
  now?: Date;
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

export function verifyWebhook(rawBody: string | Buffer, headers: HeaderSource, secrets: string | readonly string[], options: VerifyOptions = {}): VerifyResult {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature') ?? header(headers, 'x-client-signature');
  if (!id || !timestamp || !signatures) return { valid: false, reason: 'missing webhook-id, webhook-timestamp or signature header' };
  if (!/^\d+$/.test(timestamp)) return { valid: false, reason: 'malformed webhook-timestamp' };

  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) return { valid: false, reason: 'timestamp outside the tolerance (stale or from the future)' };

  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const signed = Buffer.from(`${id}.${timestamp}.${body}`);
  const candidates = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const matches = [secrets].flat().some((secret) => {
    const expected = createHmac('sha256', secretKey(secret)).update(signed).digest();
    return candidates.some((c) => c.length === expected.length && timingSafeEqual(c, expected));
  });
  if (!matches) return { valid: false, reason: 'no signature matches a known secret' };

  let event: WebhookEventBody;
  try {
    event = JSON.parse(body) as WebhookEventBody;
  } catch {
    return { valid: false, reason: 'body is not JSON' };
  }
  if (event.id !== id) return { valid: false, reason: 'body id differs from webhook-id' };
  return { valid: true, event };
}
