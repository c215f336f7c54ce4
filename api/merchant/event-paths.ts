import { z } from 'zod';
import { eventListQuerySchema, eventListSchema, EVENT_LIMITS, replayRequestSchema, replayResponseSchema } from '../../core/webhooks/event-schema.js';
import { eventStreamQuerySchema, lastEventIdSchema } from '../../core/webhooks/event-feed-schema.js';
import {
  bodyErrors,
  errorResponses,
  example,
  json,
  MERCHANT_COMMON_ERRORS,
  MERCHANT_SECURITY,
  methodNotAllowedError,
  requestIdHeader,
  type DocumentedError,
  auditEntryHeader,
} from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';
import { BOUND_BY_OPERATOR } from './webhook-endpoint-paths.js';

/** The routes ./event-routes.ts and ./event-stream-routes.ts serve, declared once: the merchant's events, their stream and their replay. */

/** A replay body is one id. */
export const REPLAY_BODY_BYTES = 4 * 1024;
/**
 * Open streams one merchant may hold on one API process: `listen` needs one, a developer a few more
 * (a second terminal, a restart that has not closed the first yet). Each open stream polls the
 * database once a second, so an unbounded number would let one key load it without limit.
 */
export const STREAMS_PER_MERCHANT = 5;

const MANUAL_SENDS_LIMITED: DocumentedError = {
  description:
    'RATE_LIMITED: you had your test events and replays for the hour to the endpoint’s origin (scheme, host and port of its URL, whichever of your endpoints has it: WEBHOOK_MANUAL_SENDS_PER_HOUR, 30 by default, from the dashboard and the API together); retry after Retry-After seconds.',
  examples: [
    example(
      'RATE_LIMITED',
      'Too many test events and replays to https://shop.example: at most 30 an hour to one origin, from the dashboard and the API together, whichever of your endpoints they go to. Retry after the delay in Retry-After.',
      [{ path: 'endpointId', message: 'its origin https://shop.example has had 30 test events and replays this hour' }],
    ),
  ],
  retryAfter: true,
};
const EVENT_NOT_SUBSCRIBED: DocumentedError = {
  description:
    'EVENT_NOT_SUBSCRIBED: the endpoint’s enabledEvents do not take this event’s type; nothing was sent or counted. The message names both. Replay it to an endpoint that takes it, or add the type to the endpoint’s enabledEvents first.',
  examples: [
    example(
      'EVENT_NOT_SUBSCRIBED',
      'This endpoint does not take order_created events: its enabledEvents are ["order_refunded"]. Replay it to an endpoint that takes order_created, or add order_created to this endpoint\'s enabledEvents first.',
      [{ path: 'endpointId', message: 'takes order_refunded, not order_created' }],
    ),
  ],
};
const EVENT_NOT_FOUND: DocumentedError = {
  description: 'NOT_FOUND: no event of yours has this id, or endpointId names none of your endpoints.',
  examples: [
    example('NOT_FOUND', 'No event of yours has this id. Event ids are the webhook-id header of a delivery, or the id listed by GET /v2/merchant/events.', [
      { path: 'id', message: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f is not one of your events' },
    ]),
  ],
};

const eventIdParameter = z.object({
  id: z.string().meta({ description: 'The event’s id (its webhook-id header)', example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
});

export const LIST_EVENTS = declareRoute({
  method: 'get',
  path: '/v2/merchant/events',
  operation: {
    operationId: 'listEvents',
    summary: 'List your events',
    description: `Every event of your orders, newest first, with where it stands at each endpoint that wanted it. Filters combine; \`delivered=false&endpointId=…\` lists what that endpoint wanted and has not received. Follow \`nextCursor\` (with the same filters) until it is null; ${EVENT_LIMITS.defaultPageSize} per page unless \`limit\` says otherwise.`,
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: { query: eventListQuerySchema },
    responses: {
      200: { description: 'A page of events.', headers: requestIdHeader, content: json(eventListSchema) },
      ...errorResponses([
        {
          description: 'VALIDATION_ERROR: a query parameter is malformed or unknown, or delivered comes without endpointId.',
          examples: [
            example('VALIDATION_ERROR', 'The request has 1 invalid field.', [
              { path: 'endpointId', message: 'is required with delivered (the endpoint whose deliveries to look at)' },
            ]),
          ],
        },
        ...MERCHANT_COMMON_ERRORS,
        methodNotAllowedError('GET'),
      ]),
    },
  },
});

export const STREAM_EVENTS = declareRoute({
  method: 'get',
  path: '/v2/merchant/events/stream',
  operation: {
    operationId: 'streamEvents',
    summary: 'Follow your events as they happen',
    description: [
      'Server-sent events (text/event-stream), open until you close it: first a `ready` message, then one message per event recorded from then on, oldest first,',
      'its `event` the event name, its `data` the body every endpoint receives, byte for byte, and its `id` its position. Reconnect with the last `id` received as',
      '`Last-Event-ID` (EventSource does) and the stream resumes right after it: nothing missed, nothing twice. A `: heartbeat` comment comes at least every 15 s. The stream ends within 5 s of its key being rotated or revoked.',
      'Nothing is delivered or signed: `npm run listen` (docs/webhooks.md) forwards each event, signed with a secret of its own, to your machine.',
    ].join(' '),
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: { query: eventStreamQuerySchema, headers: z.object({ 'Last-Event-ID': lastEventIdSchema }) },
    responses: {
      200: {
        description: 'The stream.',
        headers: requestIdHeader,
        content: {
          'text/event-stream': {
            schema: { type: 'string' },
            example:
              'event: ready\nid: ZjEuMTc5NTMwMzE2NzE3OTIwNC4\ndata: {"types":null}\n\nevent: order_created\nid: ZjEuMTc5NTMwMzE2OTIwMDAwMC5ldnRfMGExYjJjM2Q0ZTVm\ndata: {"id":"evt_0a1b2c3d4e5f","event":"order_created",…}\n\n',
          },
        },
      },
      ...errorResponses([
        {
          description: 'VALIDATION_ERROR: types names something that is not an event, an unknown query parameter, or a Last-Event-ID this stream did not send.',
          examples: [
            example('VALIDATION_ERROR', 'The request has 1 invalid field.', [
              {
                path: 'types',
                message:
                  '"order_paid" is not an event name: must be a comma-separated list of order_created, order_updated, order_cancelled, order_refunded, order_abandoned',
              },
            ]),
          ],
        },
        {
          description: `RATE_LIMITED: this merchant already holds ${STREAMS_PER_MERCHANT} open streams on this API; close one and retry after Retry-After seconds.`,
          examples: [
            example(
              'RATE_LIMITED',
              `Too many open event streams: at most ${STREAMS_PER_MERCHANT} at once per merchant. Close one (or wait for one just closed to end), then retry after the delay in Retry-After.`,
            ),
          ],
          retryAfter: true,
        },
        ...MERCHANT_COMMON_ERRORS,
        methodNotAllowedError('GET'),
      ]),
    },
  },
});

export const REPLAY_EVENT = declareRoute({
  method: 'post',
  path: '/v2/merchant/events/{id}/replay',
  operation: {
    operationId: 'replayEvent',
    summary: 'Send an event again to one endpoint',
    description:
      'Same id and body, a fresh timestamp and signature. One attempt, made during this request (within WEBHOOK_TIMEOUT_MS), and the answer gives its outcome (`sent`); unless an earlier event of the order is still pending at that endpoint: then the replay waits behind it and goes out after it (`queued`, with `queuedBehind`), or a replay of this event already waits there (`already_queued`). A failed replay is not retried (it shows in the event’s deliveries; replay it again). Only to an endpoint whose enabledEvents take the event’s type (EVENT_NOT_SUBSCRIBED). Counted with the dashboard’s test events and replays to that endpoint’s origin (scheme, host and port, whichever of your endpoints has it), at most WEBHOOK_MANUAL_SENDS_PER_HOUR (30) an hour. Refused for an endpoint an operator disabled.',
    tags: ['Webhook endpoints'],
    security: MERCHANT_SECURITY,
    request: {
      params: eventIdParameter,
      body: {
        required: true,
        content: { 'application/json': { schema: replayRequestSchema, example: { endpointId: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' } } },
      },
    },
    responses: {
      200: {
        description: 'What the replay did: sent at once, with the attempt’s outcome, or queued behind an earlier pending event of the order.',
        headers: { ...requestIdHeader, ...auditEntryHeader },
        content: {
          'application/json': {
            schema: replayResponseSchema,
            examples: {
              sent: {
                summary: 'Sent at once',
                value: {
                  eventId: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f',
                  cartId: 'q3Vh0Xc2b1TzM9r8L5kA7wYe',
                  deliveries: [
                    {
                      endpointId: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b',
                      result: 'sent',
                      attempt: { responseStatus: 200, error: null, durationMs: 42 },
                      message: 'Sent: 200 in 42 ms',
                    },
                  ],
                },
              },
              queued: {
                summary: 'Behind an earlier event still pending',
                value: {
                  eventId: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f',
                  cartId: 'q3Vh0Xc2b1TzM9r8L5kA7wYe',
                  deliveries: [
                    {
                      endpointId: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b',
                      result: 'queued',
                      queuedBehind: 'evt_0a1b2c3d4e5f6a7b8c9d0e1e',
                      message: 'Queued behind evt_0a1b2c3d4e5f6a7b8c9d0e1e',
                    },
                  ],
                },
              },
            },
          },
        },
      },
      ...errorResponses([
        ...bodyErrors(REPLAY_BODY_BYTES, 'endpointId missing or not an id, or an unknown field.', { path: 'endpointId', message: 'is required' }),
        ...MERCHANT_COMMON_ERRORS,
        EVENT_NOT_FOUND,
        BOUND_BY_OPERATOR,
        EVENT_NOT_SUBSCRIBED,
        MANUAL_SENDS_LIMITED,
        methodNotAllowedError('POST'),
      ]),
    },
  },
});

/** In the document's order. */
export const EVENT_PATHS = [LIST_EVENTS, STREAM_EVENTS, REPLAY_EVENT];
