import { Hono } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { withDeadline, type Temporal } from '../../core/temporal.js';
import { eventListQuerySchema, replayRequestSchema } from '../../core/webhooks/event-schema.js';
import { listEvents } from '../../core/webhooks/merchant-events.js';
import { replayEvent, WebhookEndpointUnknownError, WebhookEventNotFoundError } from '../../workflows/webhook-delivery/client.js';
import { ApiError, methodNotAllowed, validationError } from '../errors.js';
import { jsonBody, readValidJson } from '../json-body.js';

const TEMPORAL_DEADLINE_MS = 5_000;
/** A replay body is one id. */
export const REPLAY_BODY_BYTES = 4 * 1024;

const eventNotFound = (id: string) =>
  new ApiError('NOT_FOUND', 'No event of yours has this id. Event ids are the webhook-id header of a delivery, or the id listed by GET /v2/merchant/events.', [
    { path: 'id', message: `${id.length > 64 ? 'this value' : id} is not one of your events` },
  ]);

/** `/v2/merchant/events…`: the merchant's events and their replay, mounted behind its API key (./routes.ts). */
export function eventRoutes(deps: { config: Config; db: Db; temporal: Temporal }) {
  const { config, db, temporal } = deps;
  const delivery = { db, client: temporal.client, config };
  const app = new Hono();

  app.get('/', async (c) => {
    const parsed = eventListQuerySchema.safeParse(c.req.query(), { reportInput: true });
    if (!parsed.success) throw validationError(parsed.error);
    return c.json(await listEvents(db, c.get('merchant').platformUuid, parsed.data));
  });
  app.all('/', methodNotAllowed(['GET']));

  app.post('/:id/replay', jsonBody(REPLAY_BODY_BYTES), async (c) => {
    const id = c.req.param('id');
    const body = await readValidJson(c, replayRequestSchema);
    try {
      const replayed = await withDeadline(temporal, TEMPORAL_DEADLINE_MS, () =>
        replayEvent(delivery, id, { platformUuid: c.get('merchant').platformUuid, endpointId: body.endpointId }),
      );
      return c.json({ eventId: replayed.eventId, endpointId: body.endpointId, cartId: replayed.cartId }, 202);
    } catch (err) {
      if (err instanceof WebhookEventNotFoundError) throw eventNotFound(id);
      if (err instanceof WebhookEndpointUnknownError)
        throw new ApiError('NOT_FOUND', 'No webhook endpoint of yours has this id. List yours with GET /v2/merchant/webhook-endpoints.', [
          { path: 'endpointId', message: 'is not one of your webhook endpoints' },
        ]);
      throw err;
    }
  });
  app.all('/:id/replay', methodNotAllowed(['POST']));
  return app;
}
