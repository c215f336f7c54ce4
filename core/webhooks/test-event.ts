import type { Config } from '../config.js';
import { randomToken } from '../crypto.js';
import type { Db } from '../db/client.js';
import { findDeliveryEndpoint } from '../merchants/merchant-store.js';
import { MerchantNotFoundError } from '../merchants/merchants.js';
import { liveWebhookSecrets } from './secrets.js';
import { WEBHOOK_TEST_EVENT, type TestEventBody } from './events.js';
import { postWebhook, type PostOutcome } from './http-post.js';
import { webhookHeaders } from './signing.js';
import { webhookTargets } from '../outbound/url-safety.js';

export interface TestEventResult {
  eventId: string;
  url: string;
  outcome: PostOutcome;
}

/**
 * One signed `webhook_test` POST to the merchant's endpoint, now, with every live secret, through the
 * same address checks as a delivery: what a merchant uses to check its verification code before real
 * orders arrive. Sent even to a disabled endpoint (the merchant asked; the dashboard refuses it for
 * one an operator disabled, web/dashboard/manual-sends.ts), tied to no cart, so it is neither
 * recorded nor retried; the answer is shown to the merchant instead (a failure as its category only,
 * core/outbound/delivery-errors.ts; `outcome.errorDetail` is for operators).
 */
export async function sendTestWebhook(
  db: Db,
  config: Pick<Config, 'keyring' | 'webhooks'>,
  platformUuid: string,
  options: { post?: typeof postWebhook; message?: string; endpointId?: string } = {},
): Promise<TestEventResult> {
  // The dashboard's goes to the first endpoint; the merchant API's to the one it names.
  const endpoint = await findDeliveryEndpoint(db, platformUuid, options.endpointId);
  if (!endpoint) throw new MerchantNotFoundError(platformUuid);
  const sentAt = new Date();
  const eventId = `evt_test_${randomToken(18)}`;
  const body: TestEventBody = {
    id: eventId,
    event: WEBHOOK_TEST_EVENT,
    createdAt: sentAt.toISOString(),
    environment: endpoint.environment,
    sequence: 0,
    data: { message: options.message ?? 'A test event sent from the dashboard. Answer 2xx once its signature verifies.' },
  };
  const rawBody = JSON.stringify(body);
  const headers = webhookHeaders({
    eventId,
    event: WEBHOOK_TEST_EVENT,
    attempt: 1,
    rawBody,
    secrets: await liveWebhookSecrets(db, config.keyring, endpoint.endpointId),
    timestampSeconds: Math.floor(sentAt.getTime() / 1000),
  });
  const outcome = await (options.post ?? postWebhook)({
    url: endpoint.url,
    headers,
    body: rawBody,
    timeoutMs: config.webhooks.timeoutMs,
    targets: webhookTargets(endpoint.environment, config.webhooks),
  });
  return { eventId, url: endpoint.url, outcome };
}
