import { z } from 'zod';
import type { PaymentRecord } from '../checkout/payment-record.js';
import type { CancelledBy, CartStatus } from '../checkout/session.js';
import { orderDataSchema, type OrderData } from '../checkout/order-model.js';

/**
 * What a merchant's endpoint receives: one source for the payload types, the OpenAPI document's
 * `webhooks` (api/docs/openapi.ts) and the event reference in docs/webhooks.md
 * (scripts/generate-webhook-docs.ts).
 */

/** The event names merchants code against (docs/decisions/webhooks.md); order_disputed since issue 55. */
export const WEBHOOK_EVENT_NAMES = ['order_created', 'order_updated', 'order_cancelled', 'order_refunded', 'order_abandoned', 'order_disputed'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/** What the dashboard's "Send a test event" sends: signed like any event, tied to no cart, never retried or recorded. */
export const WEBHOOK_TEST_EVENT = 'webhook_test';

const isoTime = (description: string) => z.iso.datetime().meta({ description, example: '2030-01-01T12:00:00.000Z' });

export const webhookRefundSchema = z
  .strictObject({
    id: z.string().meta({ example: 're_Jx0b3kQ8VhV2mW9sT1aP4cLd' }),
    amount: z.int().meta({ description: 'Minor units', example: 1000 }),
    refundedTotal: z.int().meta({
      description: 'Every succeeded refund of the order so far, minor units: this one included on order_refunded, without it once it failed',
      example: 1000,
    }),
    reason: z.string().nullable().meta({ description: 'As you gave it, or null', example: 'Damaged in transit' }),
    // Only on the failed refund's order_updated: order_refunded always announces a succeeded one, and its body is unchanged.
    status: z.literal('failed').optional().meta({
      description:
        'failed on the order_updated that says the processor failed a refund it had accepted (data.refundedTotal no longer counts it); absent on order_refunded, whose refund succeeded',
      example: 'failed',
    }),
  })
  .meta({
    id: 'WebhookRefund',
    description:
      'The refund order_refunded announces (docs/decisions/refunds.md), one event per refund; or, on order_updated, a succeeded refund the processor then failed.',
  });
export type RefundSummary = z.infer<typeof webhookRefundSchema>;

/** Every event's data: the order as the Order API gives it, and on order_refunded the refund it announces. */
const cartEventDataSchema = orderDataSchema.extend({ refund: webhookRefundSchema.optional() });

const envelope = {
  id: z
    .string()
    .meta({ description: 'The event; also its webhook-id header, the same on every retry and replay: dedupe on it', example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
  createdAt: isoTime('When the event was recorded'),
  environment: z.enum(['sandbox', 'production']),
};

/** Any cart event, as the builder (core/webhooks/cart-events.ts) makes it and the event store keeps it. */
export const webhookEventBodySchema = z.strictObject({
  ...envelope,
  event: z.enum(WEBHOOK_EVENT_NAMES),
  sequence: z.int().min(1).meta({ description: 'Counts the cart’s events, from 1: apply them in this order', example: 1 }),
  data: cartEventDataSchema,
});
/** The body every merchant receives (docs/decisions/webhooks.md). */
export type WebhookEventBody = z.infer<typeof webhookEventBodySchema>;

/** order_refunded's data: the order, and the refund the event announces. */
export const orderRefundedDataSchema = z
  .intersection(orderDataSchema, z.object({ refund: webhookRefundSchema }))
  .meta({ id: 'OrderRefundedData', description: 'The order (OrderData), and the refund order_refunded announces.' });

/** order_updated's data: the order, and the refund the processor failed after accepting it, when that is what moved. */
export const orderUpdatedDataSchema = z
  .intersection(orderDataSchema, z.object({ refund: webhookRefundSchema.optional() }))
  .meta({ id: 'OrderUpdatedData', description: 'The order (OrderData), and data.refund when a refund the processor had accepted failed.' });

/**
 * One event's body: its name, the statuses it says, and whether it carries the refund or the dispute it announces.
 * Its data is OrderData itself, not a copy narrowed to the event's statuses, so a typed client has one
 * order type (docs/clients.md); the statuses are checked here and said in the description.
 */
function cartEventSchema<E extends WebhookEventName, S extends CartStatus>(
  event: E,
  statuses: readonly [S, ...S[]],
  description: string,
  carries: { refund?: true | 'maybe'; dispute?: true } = {},
) {
  const data = carries.refund === true ? orderRefundedDataSchema : carries.refund === 'maybe' ? orderUpdatedDataSchema : orderDataSchema;
  const allowed: readonly CartStatus[] = statuses;
  return z
    .strictObject({ ...webhookEventBodySchema.shape, event: z.literal(event), data })
    .refine((body) => allowed.includes(body.data.status), { path: ['data', 'status'], message: `must be ${statuses.join(' or ')} on ${event}` })
    .refine((body) => !carries.dispute || body.data.dispute !== null, { path: ['data', 'dispute'], message: `must be the order's dispute on ${event}` })
    .meta({
      id: `${event.replace(/(?:^|_)(.)/g, (_, letter: string) => letter.toUpperCase())}Event`,
      description: `${description} data.status: ${statuses.join(' or ')}.${carries.dispute ? ' data.dispute: never null.' : ''}`,
    });
}

/** Each event as the OpenAPI document and docs/webhooks.md describe it; webhookEventBodySchema is their union, loosely. */
export const CART_EVENT_SCHEMAS = {
  order_created: cartEventSchema(
    'order_created',
    ['paid', 'authorized'],
    'The payment succeeded: the order exists. With captureMethod manual the card was authorized, not charged (status authorized): ship, then capture.',
  ),
  order_updated: cartEventSchema(
    'order_updated',
    ['processing', 'failed', 'paid', 'partially_refunded', 'refunded'],
    'The payment is processing (only when it has no outcome after 2 s: a charge being resolved, or a 3-D Secure challenge; a card answered at once gets order_created or failed alone), the session failed (data.failureCode), a manual authorization was captured (paid, with data.capturedAmount), or the order’s dispute moved (data.dispute.status under_review, won or lost) or its evidenceDueBy nears (data.dispute.reminder), or the processor failed a refund it had accepted (data.refund with status failed; data.refundedTotal and data.status no longer count it).',
    { refund: 'maybe' },
  ),
  order_cancelled: cartEventSchema(
    'order_cancelled',
    ['cancelled'],
    'The customer cancelled, you ended the session (POST /v2/merchant/carts/{cartId}/expire), or a manual authorization was voided: by you (data.cancelledBy merchant) or by the hold timer (data.failureCode authorization_expired). Nothing was charged.',
  ),
  order_abandoned: cartEventSchema('order_abandoned', ['abandoned'], 'The session expired unpaid.'),
  order_refunded: cartEventSchema(
    'order_refunded',
    ['partially_refunded', 'refunded'],
    'A refund succeeded: one event per refund, with data.refund; data.refundedTotal counts it.',
    { refund: true },
  ),
  order_disputed: cartEventSchema(
    'order_disputed',
    ['paid', 'partially_refunded', 'refunded'],
    'The customer disputed the payment (a chargeback): data.dispute says how much, why, and by when to answer (evidenceDueBy). Answer with POST /v2/merchant/orders/{cartId}/dispute/evidence, or accept it; order_updated follows as it moves.',
    { dispute: true },
  ),
} satisfies Record<WebhookEventName, z.ZodType>;

export const testEventBodySchema = z
  .strictObject({
    ...envelope,
    id: z.string().meta({ description: 'evt_test_…; tied to no cart', example: 'evt_test_0a1b2c3d4e5f6a7b8c9d0e1f' }),
    event: z.literal(WEBHOOK_TEST_EVENT),
    sequence: z.literal(0).meta({ description: 'Always 0: the event belongs to no cart' }),
    data: z.strictObject({ message: z.string().meta({ example: 'A test event sent from the dashboard. Answer 2xx once its signature verifies.' }) }),
  })
  .meta({
    id: 'WebhookTestEvent',
    description:
      'What the dashboard’s "Send a test event" sends to check your verification before real orders arrive: signed like any event, tied to no cart, neither retried nor recorded.',
  });
export type TestEventBody = z.infer<typeof testEventBodySchema>;

/**
 * Whether nothing can follow this event for its cart: a session that ended without a payment has no
 * refund to come. A paid order (`order_created`, `order_refunded`) may still be refunded.
 */
export function isLastCartEvent(input: Pick<CartEventInput, 'event' | 'status'>): boolean {
  return input.event === 'order_abandoned' || input.event === 'order_cancelled' || input.status === 'failed';
}

/** What the cart workflow says happened; the body is built from it and the ledger. */
export interface CartEventInput {
  cartId: string;
  event: WebhookEventName;
  status: CartStatus;
  payment?: PaymentRecord;
  /** Why a `failed` session failed, also when no payment was tried (`otp_locked`). */
  failureCode?: string;
  /** Set on `order_refunded`: the refund it announces, one event per refund; on `order_updated`: a succeeded refund the processor failed. */
  refund?: RefundSummary;
  /** Set on `order_cancelled`: who ended the session. */
  cancelledBy?: CancelledBy;
  /** Set on `order_disputed` and a dispute's `order_updated`: the dispute as the workflow recorded it; one event per status (and per reminder). */
  dispute?: NonNullable<OrderData['dispute']>;
}

/**
 * Where an event stands at one endpoint: pending until a 2xx; failed once its retries are spent;
 * skipped while the endpoint was disabled. An event as a whole sums up its endpoints
 * (core/webhooks/event-store.ts setDeliveryStatus), or is `unsubscribed` when no endpoint wanted it.
 */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped', 'unsubscribed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
