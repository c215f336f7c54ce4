import { z } from 'zod';
import { zonedDateTime } from '../zoned-date-time.js';
import { decodeEventCursor } from './event-cursor.js';
import { DELIVERY_ERRORS } from '../outbound/delivery-errors.js';
import { booleanParameter, pageSizeParameter } from '../query-parameters.js';
import { CART_EVENT_SCHEMAS, DELIVERY_STATUSES, WEBHOOK_EVENT_NAMES } from './events.js';

/**
 * What the merchant API says about its events and what it accepts (`/v2/merchant/events`): one source
 * for the validation, the TypeScript types and the OpenAPI document (api/docs/openapi.ts).
 */

export const EVENT_LIMITS = { pageSize: 100, defaultPageSize: 25 } as const;

const isoTime = (description: string) => z.iso.datetime().meta({ description, example: '2030-01-01T12:00:00.000Z' });

export const eventDeliverySchema = z
  .strictObject({
    endpointId: z.uuid().meta({ example: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' }),
    status: z.enum(DELIVERY_STATUSES).exclude(['unsubscribed']).meta({
      description: 'pending until a 2xx; failed once its retries are spent; skipped while the endpoint was disabled',
    }),
    deliveredAt: isoTime('When the endpoint answered 2xx; null until then').nullable(),
  })
  .meta({ id: 'EventDelivery', description: 'Where the event stands at one endpoint that wanted it.' });

export const merchantEventSchema = z
  .strictObject({
    id: z.string().meta({ description: 'The webhook-id header of every delivery of it', example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
    type: z.enum(WEBHOOK_EVENT_NAMES),
    cartId: z.string().meta({ example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
    sequence: z.int().meta({ description: 'Counts the order’s events, from 1', example: 2 }),
    createdAt: isoTime('When the event was recorded'),
    body: z
      .discriminatedUnion('event', [
        CART_EVENT_SCHEMAS.order_created,
        CART_EVENT_SCHEMAS.order_updated,
        CART_EVENT_SCHEMAS.order_cancelled,
        CART_EVENT_SCHEMAS.order_refunded,
        CART_EVENT_SCHEMAS.order_abandoned,
        CART_EVENT_SCHEMAS.order_disputed,
      ])
      .meta({ description: 'The body every endpoint receives, exactly: one of the events, by its event field' }),
    deliveries: z
      .array(eventDeliverySchema)
      .meta({ description: 'One per endpoint that wanted it when it was recorded (or that it was replayed to); empty: none wanted it, and it was never sent' }),
  })
  .meta({ id: 'Event', description: 'One event of one of your orders and where it stands at each endpoint.' });

export const eventListSchema = z
  .strictObject({
    data: z.array(merchantEventSchema).meta({ description: 'Newest first' }),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page', example: null }),
  })
  .meta({ id: 'EventList' });

/** Query parameters of `GET /v2/merchant/events`, all optional; `limit` and `delivered` converted from the URL's strings (core/query-parameters.ts). */
export const eventListQuerySchema = z
  .strictObject({
    type: z.enum(WEBHOOK_EVENT_NAMES, { error: `must be one of ${WEBHOOK_EVENT_NAMES.join(', ')}` }).optional(),
    cartId: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional().meta({ description: 'The events of this order' }),
    createdFrom: zonedDateTime('must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z')
      .optional()
      .meta({ description: 'Events recorded at or after this time (ISO 8601)' }),
    createdTo: zonedDateTime('must be an ISO 8601 date-time, e.g. 2030-02-01T00:00:00Z')
      .optional()
      .meta({ description: 'Events recorded before this time (ISO 8601, exclusive)' }),
    delivered: booleanParameter()
      .optional()
      .meta({ description: 'With endpointId: false lists what that endpoint wanted and has not received (pending, failed or skipped); true what it received' }),
    endpointId: z.uuid('must be the id of one of your webhook endpoints').optional().meta({ description: 'With delivered: the endpoint' }),
    limit: pageSizeParameter(EVENT_LIMITS.pageSize)
      .optional()
      .meta({ description: `Events per page, 1 to ${EVENT_LIMITS.pageSize} (default ${EVENT_LIMITS.defaultPageSize})`, example: EVENT_LIMITS.defaultPageSize }),
    cursor: z
      .string()
      .refine((v) => decodeEventCursor(v) !== undefined, 'is not a cursor this API returned: pass nextCursor from the previous page as it is')
      .optional()
      .meta({ description: 'The previous page’s nextCursor' }),
  })
  .superRefine((query, ctx) => {
    if (query.delivered !== undefined && query.endpointId === undefined)
      ctx.addIssue({ code: 'custom', path: ['endpointId'], message: 'is required with delivered (the endpoint whose deliveries to look at)' });
    // Alone it would filter nothing, and a caller would read every event as that endpoint's.
    if (query.endpointId !== undefined && query.delivered === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['delivered'],
        message: 'is required with endpointId: true for what the endpoint received, false for what it did not',
      });
    if (query.createdFrom && query.createdTo && Date.parse(query.createdFrom) >= Date.parse(query.createdTo))
      ctx.addIssue({ code: 'custom', path: ['createdTo'], message: 'must be later than createdFrom' });
  });

export const replayRequestSchema = z
  .strictObject({
    endpointId: z
      .uuid('must be the id of one of your webhook endpoints')
      .meta({ description: 'The endpoint to send the event to again', example: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' }),
  })
  .meta({ id: 'EventReplayRequest' });

export const REPLAY_RESULTS = ['sent', 'queued', 'already_queued', 'skipped'] as const;

export const replayAttemptSchema = z
  .strictObject({
    responseStatus: z.int().nullable().meta({ description: 'The endpoint’s HTTP status; null when no answer came (see error)', example: 200 }),
    error: z
      .enum(DELIVERY_ERRORS)
      .nullable()
      .meta({ description: 'Why the attempt failed, in our categories; null for a 2xx. http_status: the endpoint answered, not 2xx', example: null }),
    durationMs: z.int().min(0).meta({ description: 'From connecting to the end of the endpoint’s answer', example: 42 }),
  })
  .meta({ id: 'EventReplayAttempt', description: 'The one attempt the replay made, recorded with the event’s other attempts.' });

export const replayDeliverySchema = z
  .strictObject({
    endpointId: z.uuid().meta({ example: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' }),
    result: z.enum(REPLAY_RESULTS).meta({
      description:
        'sent: one attempt was made during this request (see attempt). queued: an earlier event of the order is still pending at this endpoint, so the replay waits behind it (queuedBehind) and goes out after it. already_queued: a replay of this event to this endpoint already waits there; this one adds nothing. skipped: not sent, the endpoint is deleted or disabled by an operator (operators’ replays only), or its event filter no longer takes the event (in a replay to the several endpoints the event was recorded for)',
    }),
    queuedBehind: z.string().optional().meta({
      description: 'With queued and already_queued: the earliest earlier event still pending at the endpoint',
      example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1e',
    }),
    attempt: replayAttemptSchema.optional().meta({ description: 'With sent: the attempt’s outcome' }),
    message: z.string().meta({ description: 'The result in words', example: 'Sent: 200 in 42 ms' }),
  })
  .meta({ id: 'EventReplayDelivery', description: 'What the replay did at one endpoint.' });

export const replayResponseSchema = z
  .strictObject({
    eventId: z.string().meta({ example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
    cartId: z.string().meta({ example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
    deliveries: z.array(replayDeliverySchema).meta({ description: 'One per endpoint the event was replayed to' }),
  })
  .meta({
    id: 'EventReplay',
    description:
      'A replay is one attempt, made at once, unless an earlier event of the order is still pending at the endpoint: then it waits behind that one, keeping the order’s events in order.',
  });

export type ReplayDelivery = z.output<typeof replayDeliverySchema>;
export type ReplayAnswer = z.output<typeof replayResponseSchema>;
export type MerchantEvent = z.output<typeof merchantEventSchema>;
export type EventList = z.output<typeof eventListSchema>;
export type EventListQuery = z.output<typeof eventListQuerySchema>;
