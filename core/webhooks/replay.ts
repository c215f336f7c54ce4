import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import { findDeliveryEndpoint, type DeliveryEndpoint } from '../merchants/merchant-store.js';
import type { RequestDelivery } from './delivery.js';
import { deliveryEndpointIds, findEvent } from './event-store.js';
import { admitManualSend } from './manual-sends.js';

export interface ReplayDeps {
  db: Db;
  config: Pick<Config, 'webhooks'>;
  /** Hands each send to the cart's delivery workflow: workflows/webhook-delivery/client.ts deliveryRequests(client, config) is the one the roles pass. */
  requestDelivery: RequestDelivery;
  logger?: Logger;
}

export class WebhookEventNotFoundError extends Error {
  override name = 'WebhookEventNotFoundError';
  constructor(readonly eventId: string) {
    super(`no webhook event has id ${eventId}`);
  }
}

export class WebhookEndpointUnknownError extends Error {
  override name = 'WebhookEndpointUnknownError';
  constructor(readonly endpointId: string) {
    super(`no webhook endpoint of this event's merchant has id ${endpointId}`);
  }
}

/**
 * Sends one event again, once (a replay is one attempt, never put back on the retry schedule,
 * activities/webhook-delivery/index.ts): same event id and body, fresh timestamp and signature; to
 * `endpointId`, or without it to every endpoint it was recorded for (the merchant's first when none
 * was). With `platformUuid` (a merchant replaying, from the dashboard or the API) another merchant's
 * event is not found, like a missing one, and the replay is a manual send (core/webhooks/manual-sends.ts):
 * never to an endpoint an operator disabled, and counted against each endpoint's hourly limit
 * (EndpointDisabledByOperatorError, ManualSendLimitError). Operators' replays are neither.
 */
export async function replayEvent(
  deps: ReplayDeps,
  eventId: string,
  options: { platformUuid?: string; endpointId?: string } = {},
): Promise<{ eventId: string; cartId: string; endpointIds: string[] }> {
  const event = await findEvent(deps.db, eventId);
  if (!event || (options.platformUuid !== undefined && event.platform_uuid !== options.platformUuid)) throw new WebhookEventNotFoundError(eventId);
  let endpoints: DeliveryEndpoint[];
  if (options.endpointId !== undefined) {
    const endpoint = await findDeliveryEndpoint(deps.db, event.platform_uuid, options.endpointId);
    if (!endpoint || endpoint.deleted) throw new WebhookEndpointUnknownError(options.endpointId);
    endpoints = [endpoint];
  } else {
    const recorded = await deliveryEndpointIds(deps.db, eventId);
    const found = await Promise.all(
      recorded.length ? recorded.map((id) => findDeliveryEndpoint(deps.db, event.platform_uuid, id)) : [findDeliveryEndpoint(deps.db, event.platform_uuid)],
    );
    endpoints = found.filter((e): e is DeliveryEndpoint => e !== undefined);
  }
  const admitted = options.platformUuid === undefined ? undefined : await admitManualSend(deps, endpoints);
  const endpointIds = (admitted?.endpoints ?? endpoints).map((e) => e.endpointId);
  let asked = 0;
  try {
    for (const endpointId of endpointIds) {
      await deps.requestDelivery(event.cart_id, { eventId, endpointId, trigger: 'replay' });
      asked++;
    }
  } catch (err) {
    // Nothing asked of Temporal: the merchant's counts are given back (a partly asked replay keeps them).
    if (admitted && asked === 0)
      await admitted.refund().catch((refundErr: unknown) => deps.logger?.warn({ err: refundErr }, 'giving back manual-send counts failed'));
    throw err;
  }
  return { eventId, cartId: event.cart_id, endpointIds };
}
