import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import { listMerchantDeliveries, type EventDeliveries } from '../webhooks/event-store.js';
import { checkWebhookUrl } from '../webhooks/url-safety.js';
import { disableEndpoint, enableEndpoint, findDeliveryEndpoint, type EndpointActor } from './merchant-store.js';
import { getMerchant, MerchantNotFoundError, type MerchantSummary } from './merchants.js';

/** A merchant's webhook endpoint: its URL (checked for the merchant's environment), disabled and enabled again, its deliveries. */

export class WebhookUrlRejectedError extends Error {
  override name = 'WebhookUrlRejectedError';
  constructor(
    /** In full, for operators (their API and CLI) and logs. */
    readonly problems: string[],
    /** What a merchant is shown: never what our resolver answered (core/webhooks/url-safety.ts checkWebhookUrl). */
    readonly merchantProblems: string[] = problems,
  ) {
    super(`webhook URL ${problems.join('; ')}`);
  }
}

/** Throws WebhookUrlRejectedError unless the URL passes the checks of the merchant's environment. */
export async function assertWebhookUrl(url: string, environment: Environment): Promise<void> {
  const { problems, merchantProblems } = await checkWebhookUrl(url, environment);
  if (problems.length) throw new WebhookUrlRejectedError(problems, merchantProblems);
}

/**
 * Checked for the merchant's environment; a new URL also re-enables the endpoint, except one an
 * operator disabled when the merchant (`by`) saves it.
 */
export async function changeWebhookUrl(db: Db, platformUuid: string, webhookUrl: string, by: EndpointActor): Promise<MerchantSummary> {
  const merchant = await getMerchant(db, platformUuid);
  await assertWebhookUrl(webhookUrl, merchant.environment);
  if (!(await enableEndpoint(db, platformUuid, by, webhookUrl))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** Why an endpoint an operator disabled is disabled, as the merchant's webhook settings show it. */
export const OPERATOR_DISABLED_REASON = 'disabled by an operator';

/** An operator stops deliveries to the endpoint; its events are kept as `skipped`, replayable once it is enabled again. */
export async function disableWebhookEndpoint(db: Db, platformUuid: string, reason: string): Promise<MerchantSummary> {
  const endpoint = await findDeliveryEndpoint(db, platformUuid);
  if (!endpoint) throw new MerchantNotFoundError(platformUuid);
  await disableEndpoint(db, endpoint.endpointId, reason, true);
  return getMerchant(db, platformUuid);
}

/** After an outage on the merchant's side: the endpoint takes deliveries again. */
export async function reenableWebhookEndpoint(db: Db, platformUuid: string): Promise<void> {
  if (!(await enableEndpoint(db, platformUuid, 'operator'))) throw new MerchantNotFoundError(platformUuid);
}

/** An operator's view of a merchant's deliveries, newest first; an unknown merchant is an error, not an empty list. */
export async function listEndpointDeliveries(
  db: Db,
  platformUuid: string,
  filter: Parameters<typeof listMerchantDeliveries>[2] = {},
): Promise<EventDeliveries[]> {
  await getMerchant(db, platformUuid);
  return listMerchantDeliveries(db, platformUuid, filter);
}
