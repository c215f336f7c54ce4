import { createHmac, randomBytes } from 'node:crypto';
import type { WEBHOOK_TEST_EVENT, WebhookEventName } from './events.js';

/**
 * Where a webhook gets signed: Standard Webhooks (https://www.standardwebhooks.com), so merchants can
 * verify with off-the-shelf libraries. HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<raw body>`
 * with the bytes behind `whsec_`; one `v1,<base64>` per live secret, space-separated during rotation.
 */

const SECRET_PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

export function signatureFor(secret: string, webhookId: string, timestampSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${webhookId}.${timestampSeconds}.${rawBody}`).digest('base64');
  return `v1,${mac}`;
}

export function signatureList(secrets: readonly string[], webhookId: string, timestampSeconds: number, rawBody: string): string {
  if (secrets.length === 0) throw new Error('an endpoint needs at least one live secret to sign with');
  return secrets.map((s) => signatureFor(s, webhookId, timestampSeconds, rawBody)).join(' ');
}

export const WEBHOOK_USER_AGENT = 'HostedCheckout-Webhooks/1.0 (+standard-webhooks)';

/** Every header a delivery carries; the timestamp (and so the signature) is fresh per attempt. */
export function webhookHeaders(input: {
  eventId: string;
  event: WebhookEventName | typeof WEBHOOK_TEST_EVENT;
  attempt: number;
  rawBody: string;
  secrets: readonly string[];
  timestampSeconds: number;
}): Record<string, string> {
  const signature = signatureList(input.secrets, input.eventId, input.timestampSeconds, input.rawBody);
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': input.eventId,
    'webhook-timestamp': String(input.timestampSeconds),
    'webhook-signature': signature,
    'x-client-signature': signature,
    'x-client-event': input.event,
    'x-client-delivery-attempt': String(input.attempt),
  };
}
