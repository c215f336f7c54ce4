import type { Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { reenableWebhookEndpoint } from '../../core/merchants/webhook-endpoints.js';
import { findEvent, undeliveredEventsSince } from '../../core/webhooks/event-store.js';
import type { DeliveryRequest } from '../../core/webhooks/delivery.js';
import { deliverEventSignal, webhookDeliveryWorkflowId, type WebhookDeliveryInput } from './messages.js';
import { webhookDelivery } from './workflow.js';

/**
 * How the rest of the system asks for webhooks to be sent: the recording activity after each event,
 * and operators replaying or recovering. Runs outside the workflow sandbox.
 */

type Deps = { db: Db; client: Client; config: Pick<Config, 'temporal' | 'webhooks'> };

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

/**
 * Sends one event again: same event id and body, fresh timestamp and signature. With `platformUuid`
 * (a merchant replaying from the dashboard) another merchant's event is not found, like a missing one.
 */
export async function replayEvent(deps: Deps, eventId: string, options: { platformUuid?: string } = {}): Promise<{ eventId: string; cartId: string }> {
  const event = await findEvent(deps.db, eventId);
  if (!event || (options.platformUuid !== undefined && event.platform_uuid !== options.platformUuid)) throw new WebhookEventNotFoundError(eventId);
  await requestDelivery(deps.client, deps.config, event.cart_id, { eventId, trigger: 'replay' });
  return { eventId, cartId: event.cart_id };
}

/**
 * After an outage on the merchant's side: re-enables the endpoint and sends again, cart by cart in
 * order, every event since `since` that failed or was skipped.
 */
export async function recoverEndpoint(deps: Deps, platformUuid: string, since: Date): Promise<{ platformUuid: string; eventIds: string[] }> {
  await reenableWebhookEndpoint(deps.db, platformUuid);
  const events = await undeliveredEventsSince(deps.db, platformUuid, since);
  for (const event of events) await requestDelivery(deps.client, deps.config, event.cart_id, { eventId: event.id, trigger: 'recover' });
  return { platformUuid, eventIds: events.map((e) => e.id) };
}
