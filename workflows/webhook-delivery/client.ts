import type { Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { reenableWebhookEndpoint } from '../../core/merchants/webhook-endpoints.js';
import { findDeliveryEndpoint, type DeliveryEndpoint } from '../../core/merchants/merchant-store.js';
import type { Logger } from '../../core/logger.js';
import { admitManualSend } from '../../core/webhooks/manual-sends.js';
import { deliveryEndpointIds, findEvent, undeliveredEventsSince } from '../../core/webhooks/event-store.js';
import type { DeliveryRequest } from '../../core/webhooks/delivery.js';
import { deliverEventSignal, webhookDeliveryWorkflowId, type WebhookDeliveryInput } from './messages.js';
import { webhookDelivery } from './workflow.js';

/**
 * How the rest of the system asks for webhooks to be sent: the recording activity after each event,
 * and operators replaying or recovering. Runs outside the workflow sandbox.
 */

type Deps = { db: Db; client: Client; config: Pick<Config, 'temporal' | 'webhooks'>; logger?: Logger };

export class WebhookEventNotFoundError extends Error {
  override name = 'WebhookEventNotFoundError';
  constructor(readonly eventId: string) {
    super(`no webhook event has id ${eventId}`);
  }
}

/**
 * Hands an event to its cart's delivery workflow, starting the workflow when none runs. Safe to
 * repeat: the workflow ignores a request it already holds, and the activity skips an event already
 * delivered.
 */
export async function requestDelivery(client: Client, config: Pick<Config, 'temporal' | 'webhooks'>, cartId: string, request: DeliveryRequest): Promise<void> {
  const input: WebhookDeliveryInput = { cartId, attemptTimeoutMs: config.webhooks.timeoutMs };
  await client.workflow.signalWithStart(webhookDelivery, {
    workflowId: webhookDeliveryWorkflowId(cartId),
    taskQueue: config.temporal.taskQueue,
    args: [input],
    signal: deliverEventSignal,
    signalArgs: [request],
  });
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
  deps: Deps,
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
      await requestDelivery(deps.client, deps.config, event.cart_id, { eventId, endpointId, trigger: 'replay' });
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

/**
 * After an outage on the merchant's side: re-enables the endpoint (the merchant's first without
 * `endpointId`) and sends it again, cart by cart in order, every event since `since` that failed or was
 * skipped there.
 */
export async function recoverEndpoint(
  deps: Deps,
  platformUuid: string,
  since: Date,
  endpointId?: string,
): Promise<{ platformUuid: string; endpointId: string; eventIds: string[] }> {
  const id = await reenableWebhookEndpoint(deps.db, platformUuid, endpointId);
  const events = await undeliveredEventsSince(deps.db, id, since);
  for (const event of events) await requestDelivery(deps.client, deps.config, event.cart_id, { eventId: event.id, endpointId: id, trigger: 'recover' });
  return { platformUuid, endpointId: id, eventIds: events.map((e) => e.id) };
}
