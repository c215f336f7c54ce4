import { Hono } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { EndpointDisabledByOperatorError } from '../../core/webhooks/endpoints.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { eventListQuerySchema, replayRequestSchema, replayResponseSchema } from '../../core/webhooks/event-schema.js';
import { ManualSendLimitError } from '../../core/webhooks/manual-sends.js';
import { listEvents } from '../../core/webhooks/merchant-events.js';
import {
  EventNotSubscribedError,
  replayDeps,
  replayEvent,
  WebhookEndpointUnknownError,
  WebhookEventNotFoundError,
  type ReplaySender,
} from '../../core/webhooks/replay.js';
import { boundedDeliveryRequests } from '../../workflows/webhook-delivery/client.js';
import { ApiError, validationError } from '../../application/errors.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { LIST_EVENTS, REPLAY_BODY_BYTES, REPLAY_EVENT } from './event-paths.js';
import { MERCHANT_MOUNT } from './mount.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { endpointDisabledByOperator, manualSendsRateLimited } from './webhook-endpoint-routes.js';

/** Bounds handing a queued replay to Temporal; a replay sent at once is bounded by WEBHOOK_TIMEOUT_MS instead. */
const TEMPORAL_DEADLINE_MS = 5_000;

/** RATE_LIMITED: the merchant's manual sends (test events and replays, dashboard and API together) to the endpoint's origin are used up for the hour. */

/** EVENT_NOT_SUBSCRIBED: the endpoint's event filter does not take the event; the message names both. */
export const eventNotSubscribed = (err: EventNotSubscribedError) =>
  new ApiError(
    'EVENT_NOT_SUBSCRIBED',
    `This endpoint does not take ${err.event} events: its enabledEvents are ${JSON.stringify(err.enabledEvents)}. Replay it to an endpoint that takes ${err.event}, or add ${err.event} to this endpoint's enabledEvents first.`,
    [{ path: 'endpointId', message: `takes ${err.enabledEvents.join(', ')}, not ${err.event}` }],
  );

const eventNotFound = (id: string) =>
  new ApiError('NOT_FOUND', 'No event of yours has this id. Event ids are the webhook-id header of a delivery, or the id listed by GET /v2/merchant/events.', [
    { path: 'id', message: `${id.length > 64 ? 'this value' : id} is not one of your events` },
  ]);

/**
 * `/v2/merchant/events…`: the merchant's events and their replay, mounted behind its API key (./routes.ts).
 * A replay is a manual send, limited per target origin with the dashboard's (core/webhooks/manual-sends.ts),
 * only to an endpoint that takes the event, and answers what it did at each endpoint: sent (with the attempt's outcome) or queued.
 */
export function eventRoutes(deps: { config: Config; db: Db; temporal: Temporal } & ReplaySender) {
  const { config, db, temporal } = deps;
  const delivery = replayDeps({ ...deps, requestDelivery: boundedDeliveryRequests(temporal, config, TEMPORAL_DEADLINE_MS) });
  const app = new Hono();

  serve(app, MERCHANT_MOUNT, LIST_EVENTS, async (c) => {
    const parsed = eventListQuerySchema.safeParse(c.req.query(), { reportInput: true });
    if (!parsed.success) throw validationError(parsed.error);
    return c.json(await listEvents(db, config.keyring, c.get('merchant').platformUuid, parsed.data));
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, LIST_EVENTS);

  serve(app, MERCHANT_MOUNT, REPLAY_EVENT, jsonBody(REPLAY_BODY_BYTES), async (c) => {
    const id = c.req.param('id');
    const body = await readValidJson(c, replayRequestSchema);
    try {
      const replayed = await replayEvent(delivery, id, { platformUuid: c.get('merchant').platformUuid, endpointId: body.endpointId });
      return c.json(replayResponseSchema.parse(replayed), 200);
    } catch (err) {
      if (err instanceof WebhookEventNotFoundError) throw eventNotFound(id);
      if (err instanceof EndpointDisabledByOperatorError) throw endpointDisabledByOperator(err);
      if (err instanceof ManualSendLimitError) throw manualSendsRateLimited(err);
      if (err instanceof EventNotSubscribedError) throw eventNotSubscribed(err);
      if (err instanceof WebhookEndpointUnknownError)
        throw new ApiError('NOT_FOUND', 'No webhook endpoint of yours has this id. List yours with GET /v2/merchant/webhook-endpoints.', [
          { path: 'endpointId', message: 'is not one of your webhook endpoints' },
        ]);
      throw err;
    }
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, REPLAY_EVENT);
  return app;
}
