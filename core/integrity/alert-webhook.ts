import { randomUUID } from 'node:crypto';
import type { postWebhook, PostOutcome } from '../webhooks/http-post.js';
import { signatureFor, WEBHOOK_USER_AGENT } from '../webhooks/signing.js';
import type { WebhookTargets } from '../outbound/url-safety.js';
import type { Alert } from './tamper-check.js';

/**
 * One POST of the tamper check's new alerts to the operators' URL (INTEGRITY_ALERT_WEBHOOK_URL), through
 * the merchant webhooks' outbound guard (core/webhooks/http-post.ts) and signed the same way
 * (Standard Webhooks) when a secret is set.
 */
export function postIntegrityAlerts(input: {
  url: string;
  secret?: string;
  runId: string;
  alerts: Alert[];
  timeoutMs: number;
  targets: WebhookTargets;
  post: typeof postWebhook;
  now?: Date;
}): Promise<PostOutcome> {
  const id = `integrity-${randomUUID()}`;
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const body = JSON.stringify({
    type: 'page_integrity.alert',
    runId: input.runId,
    alerts: input.alerts.map((a) => ({ id: a.id, variant: a.variant, difference: a.difference, raisedAt: a.raisedAt.toISOString() })),
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    ...(input.secret ? { 'webhook-signature': signatureFor(input.secret, id, timestamp, body) } : {}),
  };
  return input.post({ url: input.url, headers, body, timeoutMs: input.timeoutMs, targets: input.targets });
}
