import { z } from 'zod';
import { CART_EVENT_SCHEMAS, WEBHOOK_EVENT_NAMES, type WebhookEventName } from './events.js';

/**
 * What the merchant API accepts on its event stream (`GET /v2/merchant/events/stream`) and the
 * position it hands out as each message's SSE `id`: one source for the validation and the OpenAPI
 * document (api/docs/openapi.ts).
 */

/**
 * Where a stream stands: after the event recorded at `createdAtMicros` with id `eventId`. An empty
 * `eventId` stands before every event of that microsecond: where a stream that has sent nothing yet
 * starts. Microseconds, as core/list-cursor.ts explains; a tag of its own, so a list's cursor is
 * refused here and this position by the list.
 */
export interface FeedPosition {
  createdAtMicros: string;
  eventId: string;
}

const TAG = 'f1';
const MICROS = /^\d{1,19}$/;
const LATEST_MICROS = BigInt(Number.MAX_SAFE_INTEGER) * 1000n;
const EVENT_ID = /^(evt_[A-Za-z0-9_-]{1,64})?$/;

export function encodeFeedPosition({ createdAtMicros, eventId }: FeedPosition): string {
  return Buffer.from(`${TAG}.${createdAtMicros}.${eventId}`, 'utf8').toString('base64url');
}

/** The position, or undefined for anything the stream did not hand out. */
export function decodeFeedPosition(value: string): FeedPosition | undefined {
  if (value.length > 200 || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  const [tag, createdAtMicros, eventId, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('.');
  if (tag !== TAG || rest.length > 0 || createdAtMicros === undefined || eventId === undefined) return undefined;
  if (!MICROS.test(createdAtMicros) || BigInt(createdAtMicros) > LATEST_MICROS || !EVENT_ID.test(eventId)) return undefined;
  return { createdAtMicros, eventId };
}

const KNOWN = new Set<string>(WEBHOOK_EVENT_NAMES);

/** The names of a comma-separated list that are not event names. */
export function unknownEventNames(list: string): string[] {
  return list.split(',').filter((name) => !KNOWN.has(name));
}

/** Query parameters of `GET /v2/merchant/events/stream`; as strings, the way a URL carries them. */
export const eventStreamQuerySchema = z.strictObject({
  types: z
    .string()
    .superRefine((list, ctx) => {
      const unknown = unknownEventNames(list);
      if (unknown.length > 0)
        ctx.addIssue({
          code: 'custom',
          message: `${unknown.map((name) => (name.length > 64 ? 'a value' : JSON.stringify(name))).join(', ')} ${unknown.length === 1 ? 'is not an event name' : 'are not event names'}: must be a comma-separated list of ${WEBHOOK_EVENT_NAMES.join(', ')}`,
        });
    })
    .optional()
    .meta({ description: 'Only these events, comma-separated; every event without it', example: 'order_created,order_updated' }),
});

/** `Last-Event-ID`: the `id` of the last message the client received, so the stream resumes right after it. */
export const lastEventIdSchema = z
  .string()
  .refine((v) => decodeFeedPosition(v) !== undefined, 'is not an id this stream sent: send the id of the last message received, as it is')
  .optional()
  .meta({ description: 'The `id` of the last message received: the stream resumes after it, missing and repeating nothing' });

export type EventStreamQuery = z.output<typeof eventStreamQuerySchema>;

/** The event names of the query, or undefined for all of them. */
export function eventTypesOf(query: EventStreamQuery): WebhookEventName[] | undefined {
  return query.types?.split(',') as WebhookEventName[] | undefined;
}

const messageId = z
  .string()
  .meta({ description: 'The position: send it back as Last-Event-ID to resume after this message', example: 'ZjEuMTc5NTMwMzE2NzE3OTIwNC4' });

/** The stream's first message: where it starts, and the event names it was opened for. */
const readyMessageSchema = z
  .strictObject({
    event: z.literal('ready'),
    id: messageId,
    data: z
      .strictObject({ types: z.array(z.enum(WEBHOOK_EVENT_NAMES)).nullable().meta({ description: 'The types asked for; null: every event' }) })
      .meta({ id: 'EventStreamReady' }),
  })
  .meta({ id: 'EventStreamReadyMessage', description: 'The stream’s first message.' });

/** Named, so each generated client types it once (EventStreamOrderCreatedMessage, …). */
const eventMessageSchema = <E extends WebhookEventName>(name: E) =>
  z
    .strictObject({ event: z.literal(name), id: messageId, data: CART_EVENT_SCHEMAS[name] })
    .meta({ id: `EventStream${name.replace(/(?:^|_)(.)/g, (_, letter: string) => letter.toUpperCase())}Message`, description: `A ${name} event.` });

/**
 * One message of the stream, its `data` parsed as JSON: what the OpenAPI document gives as the stream's
 * `x-itemSchema` (the name OpenAPI 3.2 gives it), so a client or a fuzzer validates each message.
 */
export const STREAM_MESSAGE_COMPONENT = 'EventStreamMessage';
export const eventStreamMessageSchema = z
  .discriminatedUnion('event', [
    readyMessageSchema,
    eventMessageSchema('order_created'),
    eventMessageSchema('order_updated'),
    eventMessageSchema('order_cancelled'),
    eventMessageSchema('order_refunded'),
    eventMessageSchema('order_abandoned'),
  ])
  .meta({
    id: STREAM_MESSAGE_COMPONENT,
    description:
      'One server-sent event of GET /v2/merchant/events/stream, as its SSE fields: event (ready, then an event name), id (its position) and data, here parsed as the JSON it carries: {types} on ready, else the event body every endpoint receives.',
  });
