import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import { findDeliveryEndpoint, type DeliveryEndpoint } from '../merchants/merchant-store.js';
import type { RequestDelivery } from './delivery.js';
import { createDeliveryAttempt, type DeliveryAttemptDeps, type MakeDeliveryAttempt } from './delivery-attempt.js';
import { DELIVERY_ERROR_WORDS } from '../outbound/delivery-errors.js';
import type { DeliveryMetrics } from './delivery-metrics.js';
import type { ReplayAnswer, ReplayDelivery } from './event-schema.js';
import { deliveryEndpointIds, earliestPendingBefore, findEvent, forgetQueuedReplay, noteQueuedReplay, type StoredEvent } from './event-store.js';
import type { postWebhook } from './http-post.js';
import { admitManualSend } from './manual-sends.js';

export interface ReplayDeps {
  db: Db;
  config: Pick<Config, 'webhooks'>;
  /** The one delivery attempt (core/webhooks/delivery-attempt.ts), made here, in the caller's process, for a replay sent at once. */
  attemptDelivery: MakeDeliveryAttempt;
  /**
   * Hands a replay that must wait to the cart's delivery workflow: workflows/webhook-delivery/client.ts
   * deliveryRequests(client, config) is the one the roles pass, bounded by their Temporal deadline.
   */
  requestDelivery: RequestDelivery;
  logger?: Logger;
}

/** What a role that replays (the API, the dashboard, the operator CLI) has for the attempts it makes itself. */
export interface ReplaySender {
  logger: Logger;
  /** Its own registry's webhook metrics (core/webhooks/delivery-metrics.ts). */
  deliveryMetrics: DeliveryMetrics;
  postWebhook?: typeof postWebhook;
}

/** Replay's dependencies in a role: the attempt is built as the worker's is, from the role's own. */
export const replayDeps = (
  deps: ReplaySender & Pick<DeliveryAttemptDeps, 'config' | 'db'> & { config: Pick<Config, 'webhooks'>; requestDelivery: RequestDelivery },
): ReplayDeps => ({
  db: deps.db,
  config: deps.config,
  logger: deps.logger,
  requestDelivery: deps.requestDelivery,
  attemptDelivery: createDeliveryAttempt({ ...deps, metrics: deps.deliveryMetrics }),
});

export class WebhookEventNotFoundError extends Error {
  override name = 'WebhookEventNotFoundError';
  constructor(readonly eventId: string) {
    super(`no webhook event has id ${eventId}`);
  }
}

/** Refused: the endpoint's event filter (`enabledEvents`) does not take the event; nothing was sent or counted. */
export class EventNotSubscribedError extends Error {
  override name = 'EventNotSubscribedError';
  constructor(
    readonly event: string,
    readonly endpointId: string,
    readonly enabledEvents: readonly string[],
  ) {
    super(`webhook endpoint ${endpointId} takes ${enabledEvents.join(', ')}, not ${event}`);
  }
}

/** Whether `endpoint` takes `event` now: the test of subscribedEndpoints (core/merchants/merchant-store.ts), which chooses an event's deliveries. */
const takes = (endpoint: DeliveryEndpoint, event: string) => endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(event);

export class WebhookEndpointUnknownError extends Error {
  override name = 'WebhookEndpointUnknownError';
  constructor(readonly endpointId: string) {
    super(`no webhook endpoint of this event's merchant has id ${endpointId}`);
  }
}

/**
 * Sends one event again: same event id and body, fresh timestamp and signature; to `endpointId`, or
 * without it to every endpoint it was recorded for (the merchant's first when none was). Only to an
 * endpoint whose event filter takes the event now: `endpointId` that does not is refused, as is a
 * replay none of whose endpoints does (EventNotSubscribedError, nothing sent or counted); in a
 * replay to several, an endpoint whose filter changed since is `skipped`. At each endpoint it is one
 * attempt made at once, here, and never put back on the retry schedule; unless an earlier event of
 * the cart is still pending there: then the replay waits behind it in the cart's delivery workflow,
 * which keeps the cart's order (`queued`), or already waits there (`already_queued`).
 * With `platformUuid` (a merchant replaying, from the dashboard or the API) another merchant's event
 * is not found, like a missing one, and the replay is a manual send (core/webhooks/manual-sends.ts):
 * never to an endpoint an operator disabled, and counted against the merchant's hourly limit per
 * target origin (EndpointDisabledByOperatorError, ManualSendLimitError). Operators' replays are neither.
 */
export async function replayEvent(deps: ReplayDeps, eventId: string, options: { platformUuid?: string; endpointId?: string } = {}): Promise<ReplayAnswer> {
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
  // A deleted endpoint is skipped whatever it takes (replayTo); a live one that does not take the event is refused.
  const taking = endpoints.filter((e) => e.deleted || takes(e, event.event));
  const notTaking = endpoints.filter((e) => !taking.includes(e));
  if (taking.length === 0 && notTaking[0]) throw new EventNotSubscribedError(event.event, notTaking[0].endpointId, notTaking[0].enabledEvents);
  const admitted = options.platformUuid === undefined ? undefined : await admitManualSend(deps, options.platformUuid, taking);
  const settled = await Promise.allSettled((admitted?.endpoints ?? taking).map((e) => replayTo(deps, event, e.endpointId)));
  const leftOut = notTaking.map((e): ReplayDelivery => ({
    endpointId: e.endpointId,
    result: 'skipped',
    message: `Not sent: the endpoint takes ${e.enabledEvents.join(', ')}, not ${event.event}`,
  }));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    // Nothing sent or queued: the merchant's counts are given back (a partly done replay keeps them).
    if (admitted && settled.every((s) => s.status === 'rejected'))
      await admitted.refund().catch((refundErr: unknown) => deps.logger?.warn({ err: refundErr }, 'giving back manual-send counts failed'));
    throw failed.reason;
  }
  return { eventId, cartId: event.cart_id, deliveries: [...settled.map((s) => (s as PromiseFulfilledResult<ReplayDelivery>).value), ...leftOut] };
}

/** The replay at one endpoint: sent at once, or behind the cart's earliest earlier event still pending there. */
async function replayTo(deps: ReplayDeps, event: StoredEvent, endpointId: string): Promise<ReplayDelivery> {
  const behind = await earliestPendingBefore(deps.db, { cartId: event.cart_id, sequence: event.payload.sequence }, endpointId);
  if (behind !== undefined) {
    if (!(await noteQueuedReplay(deps.db, event.id, endpointId)))
      return { endpointId, result: 'already_queued', queuedBehind: behind, message: `Already queued behind ${behind}` };
    try {
      await deps.requestDelivery(event.cart_id, { eventId: event.id, endpointId, trigger: 'replay' });
    } catch (err) {
      // Not handed over: nothing waits, so the next replay must not be told one does.
      await forgetQueuedReplay(deps.db, event.id, endpointId);
      throw err;
    }
    return { endpointId, result: 'queued', queuedBehind: behind, message: `Queued behind ${behind}` };
  }
  const report = await deps.attemptDelivery({ eventId: event.id, endpointId, trigger: 'replay' }, { attempt: 1 });
  if (!report.sent) return { endpointId, result: 'skipped', message: 'Not sent: the endpoint is deleted or disabled by an operator' };
  const { responseStatus, error, durationMs } = report.sent;
  const outcome = responseStatus !== null ? String(responseStatus) : DELIVERY_ERROR_WORDS[error!];
  return { endpointId, result: 'sent', attempt: report.sent, message: `Sent: ${outcome} in ${durationMs} ms` };
}
