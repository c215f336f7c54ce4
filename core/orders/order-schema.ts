import { z } from 'zod';
import { zonedDateTime } from '../zoned-date-time.js';
import { plainText } from '../checkout/cart-schema.js';
import { DELIVERY_ERRORS } from '../outbound/delivery-errors.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_NAMES } from '../webhooks/events.js';
import { pageSizeParameter } from '../query-parameters.js';
import { decodeOrderCursor } from './order-cursor.js';
import { cartStatusSchema, orderDataSchema } from '../checkout/order-model.js';

/**
 * What the merchant API says about orders and refunds, and what it accepts: one source for the
 * validation, the TypeScript types, the OpenAPI document (api/docs/openapi.ts) and the dashboard.
 */

export const ORDER_LIMITS = {
  /** Characters of a refund's reason. */
  reason: 500,
  /** Orders per page of the list. */
  pageSize: 100,
  defaultPageSize: 25,
  /** Characters of a webhook answer shown with its attempt. */
  responseExcerpt: 500,
  extraKey: 255,
  extraValue: 255,
} as const;

const isoTime = (description: string) => z.iso.datetime().meta({ description, example: '2030-01-01T12:00:00.000Z' });

export const refundStatusSchema = z.enum(['pending', 'succeeded', 'failed']);

export const refundSchema = z
  .strictObject({
    id: z.string().meta({ description: 'The refund; also its idempotency key at the processor', example: 're_Jx0b3kQ8VhV2mW9sT1aP4cLd' }),
    cartId: z.string().meta({ example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
    amount: z.int().positive().meta({ description: 'Minor units of the order currency', example: 1000 }),
    reason: z.string().nullable().meta({ description: 'As the merchant gave it, or null', example: 'Damaged in transit' }),
    status: refundStatusSchema.meta({
      description: 'pending while the processor works on it (its amount is reserved); succeeded; or failed (see failureCode; the reservation is released).',
    }),
    failureCode: z.string().nullable().meta({ description: 'Why a failed refund failed, e.g. refund_declined; null otherwise', example: null }),
    createdAt: isoTime('When the refund was asked for'),
  })
  .meta({ id: 'Refund', description: 'One refund of an order.' });

export const webhookAttemptSchema = z
  .strictObject({
    endpointId: z.string().meta({ description: 'The webhook endpoint the attempt went to', example: '0b6f2c1e-4a3d-4c5b-9e8f-1a2b3c4d5e6f' }),
    attemptedAt: isoTime('When the request went out'),
    responseStatus: z.int().nullable().meta({ description: 'Your endpoint’s HTTP status; null when no answer came', example: 200 }),
    responseExcerpt: z
      .string()
      .nullable()
      .meta({ description: `The first ${ORDER_LIMITS.responseExcerpt} characters of your endpoint’s answer; null when no answer came`, example: 'ok' }),
    error: z.enum(DELIVERY_ERRORS).nullable().meta({
      description:
        'Why the attempt failed, as a category: unreachable_host (the host did not resolve, or resolved to an address webhooks may not reach: one category, so it says nothing of our network), connection_refused, timeout, tls, network (the connection failed otherwise), cancelled, or http_status (your endpoint answered, not 2xx: see responseStatus). Never more than the category. Null for a 2xx, and while the attempt has no outcome yet',
      example: null,
    }),
    durationMs: z.int().nullable().meta({ description: 'How long the attempt took', example: 42 }),
  })
  .meta({ id: 'WebhookAttempt' });

export const orderWebhookSchema = z
  .strictObject({
    eventId: z.string().meta({ description: 'The webhook-id header of every attempt', example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
    event: z.enum(WEBHOOK_EVENT_NAMES),
    sequence: z.int().meta({ description: 'Counts the order’s events, from 1', example: 2 }),
    status: z.enum(DELIVERY_STATUSES).meta({
      description:
        'Over all the endpoints that wanted the event: pending until each answered 2xx, then delivered; failed once the retries to one are spent; skipped while one was disabled; unsubscribed when none of your endpoints wants this event (recorded, never sent)',
    }),
    createdAt: isoTime('When the event was recorded'),
    attempts: z.array(webhookAttemptSchema),
  })
  .meta({ id: 'OrderWebhook', description: 'One webhook event of the order and every attempt to deliver it.' });

export const orderSchema = z
  .intersection(
    orderDataSchema,
    z.object({
      expiresOn: isoTime('When the checkout session stopped (or stops) accepting the customer'),
      refunds: z.array(refundSchema).meta({ description: 'Oldest first' }),
      webhooks: z.array(orderWebhookSchema).meta({ description: 'In sequence order' }),
    }),
  )
  .meta({ id: 'Order', description: 'An order (OrderData, as every webhook event carries it) with its refunds and webhook deliveries.' });

export const orderListSchema = z
  .strictObject({
    data: z.array(orderDataSchema).meta({ description: 'Newest first; each as OrderData, the model every webhook event carries' }),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page', example: null }),
  })
  .meta({ id: 'OrderList' });

/** Query parameters of `GET /v2/merchant/orders`, all optional; `limit` converted from the URL's string (core/query-parameters.ts). */
export const orderListQuerySchema = z
  .strictObject({
    status: cartStatusSchema.optional(),
    createdFrom: zonedDateTime('must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z')
      .optional()
      .meta({ description: 'Orders created at or after this time (ISO 8601)' }),
    createdTo: zonedDateTime('must be an ISO 8601 date-time, e.g. 2030-02-01T00:00:00Z')
      .optional()
      .meta({ description: 'Orders created before this time (ISO 8601, exclusive)' }),
    extraKey: z
      .string()
      .min(1, 'must not be empty')
      .max(ORDER_LIMITS.extraKey, `must be at most ${ORDER_LIMITS.extraKey} characters`)
      .optional()
      .meta({ description: 'With extraValue: orders whose `extra` has this key with exactly that value', example: 'orderRef' }),
    extraValue: z
      .string()
      .max(ORDER_LIMITS.extraValue, `must be at most ${ORDER_LIMITS.extraValue} characters`)
      .optional()
      .meta({ description: 'See extraKey', example: 'order-42' }),
    limit: pageSizeParameter(ORDER_LIMITS.pageSize)
      .optional()
      .meta({ description: `Orders per page, 1 to ${ORDER_LIMITS.pageSize} (default ${ORDER_LIMITS.defaultPageSize})`, example: ORDER_LIMITS.defaultPageSize }),
    cursor: z
      .string()
      .refine((v) => decodeOrderCursor(v) !== undefined, 'is not a cursor this API returned: pass nextCursor from the previous page as it is')
      .optional()
      .meta({ description: 'The previous page’s nextCursor' }),
  })
  .superRefine((query, ctx) => {
    if (query.extraKey !== undefined && query.extraValue === undefined)
      ctx.addIssue({ code: 'custom', path: ['extraValue'], message: 'is required with extraKey (the value that key must have)' });
    if (query.extraValue !== undefined && query.extraKey === undefined)
      ctx.addIssue({ code: 'custom', path: ['extraKey'], message: 'is required with extraValue (the key of extra to compare)' });
    if (query.createdFrom && query.createdTo && Date.parse(query.createdFrom) >= Date.parse(query.createdTo))
      ctx.addIssue({ code: 'custom', path: ['createdTo'], message: 'must be later than createdFrom' });
  });

export const captureRequestSchema = z
  .strictObject({
    amount: z
      .int('must be a whole number of minor units (e.g. 1000 for 10.00 EUR)')
      .min(1, 'must be greater than 0 (minor units, e.g. 1000 for 10.00 EUR)')
      .max(Number.MAX_SAFE_INTEGER, 'is too large')
      .optional()
      .meta({
        description: 'Minor units, at most the authorized amount (the order amount); the rest of the hold is released. Absent: all of it.',
        example: 3000,
      }),
  })
  .meta({ id: 'CaptureRequest' });

export const refundRequestSchema = z
  .strictObject({
    amount: z
      .int('must be a whole number of minor units (e.g. 1000 for 10.00 EUR)')
      .min(1, 'must be greater than 0 (minor units, e.g. 1000 for 10.00 EUR)')
      .max(Number.MAX_SAFE_INTEGER, 'is too large')
      .meta({ description: 'Minor units of the order currency; at most what remains refundable', example: 1000 }),
    reason: z
      .string('must be a string')
      .max(ORDER_LIMITS.reason, `must be at most ${ORDER_LIMITS.reason} characters`)
      .refine((v) => plainText(v, true), 'must not contain control characters other than tabs and line breaks')
      .optional()
      .meta({ description: `Why; kept with the refund and sent in order_refunded (at most ${ORDER_LIMITS.reason} characters)`, example: 'Damaged in transit' }),
  })
  .meta({ id: 'RefundRequest' });

export type Refund = z.output<typeof refundSchema>;
export type RefundStatus = z.output<typeof refundStatusSchema>;
export type Order = z.output<typeof orderSchema>;
export type OrderList = z.output<typeof orderListSchema>;
export type OrderListQuery = z.output<typeof orderListQuerySchema>;
export type RefundRequest = z.output<typeof refundRequestSchema>;
export type CaptureRequest = z.output<typeof captureRequestSchema>;
