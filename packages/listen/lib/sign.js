import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks (https://www.standardwebhooks.com), as a delivery is signed: HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the bytes behind `whsec_`, sent as `v1,<base64>`.
 */

/** A secret for one run: `whsec_` + base64 of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export function signature(secret, webhookId, timestampSeconds, rawBody) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${rawBody}`).digest('base64')}`;
}

/** The headers a delivery carries (docs/webhooks.md "Signature"), for its first attempt. */
export function deliveryHeaders({ eventId, event, rawBody, secret, timestampSeconds }) {
  const signed = signature(secret, eventId, timestampSeconds, rawBody);
  return {
    'content-type': 'application/json',
    'user-agent': 'HostedCheckout-Webhooks/1.0 (+standard-webhooks)',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signed,
    'x-client-signature': signed,
    'x-client-event': event,
    'x-client-delivery-attempt': '1',
  };
}
