import type { Environment } from '../config.js';
import { randomToken } from '../crypto.js';
import type { OrderRow } from '../checkout/order-views.js';
import type { Sql } from '../db/client.js';
import { orderDataOf, type OrderContext, type OrderData } from '../checkout/order-model.js';
import { subscribedEndpoints } from '../merchants/merchant-store.js';
import { findCartEvent, insertEventWithDeliveries, nextEventSequence } from './event-store.js';
import type { PaymentRecord } from '../checkout/payment-record.js';
import type { CartEventInput, WebhookEventBody } from './events.js';

/**
 * The body of a cart's event, fixed once recorded (docs/decisions/webhooks.md): the order as the
 * ledger holds it in the transaction that records the event (the step's own changes included), as
 * the Order API gives it (core/checkout/order-model.ts), with what the event itself says: its status,
 * its refund, and what the session told of the payment and the outcome, which the ledger records
 * first (activities/cart-session/ledger.ts) and so agrees with.
 */
export function cartEventBody(order: OrderData, environment: Environment, input: CartEventInput, sequence: number): WebhookEventBody {
  return {
    id: `evt_${randomToken(18)}`,
    event: input.event,
    createdAt: new Date().toISOString(),
    environment,
    sequence,
    data: {
      ...order,
      status: input.status,
      // From this refund's own total, as the refund says it: a retry after a later refund says the same.
      ...(input.refund ? { refundedTotal: input.refund.refundedTotal, refund: input.refund } : {}),
      ...(input.payment ? { payment: paymentOf(input.payment, order.payment) } : {}),
      ...(input.failureCode ? { failureCode: input.failureCode } : {}),
      ...(input.cancelledBy ? { cancelledBy: input.cancelledBy } : {}),
      ...(input.dispute ? { dispute: input.dispute } : {}),
    },
  };
}

/** The card as the order model gives it: the session's account of the outcome is the order's own fields. */
const paymentOf = ({ brand, last4, threeDSecure, savedCard }: PaymentRecord, recorded: OrderData['payment']): OrderData['payment'] => ({
  brand,
  last4,
  ...(threeDSecure ? { threeDSecure: { result: threeDSecure.result } } : {}),
  savedCard: savedCard ?? recorded?.savedCard ?? false,
});

/**
 * Records the cart's event with the next sequence number, or finds it when already recorded
 * (idempotent on cart, event and status, for `order_refunded` on the refund, and for a dispute's events on
 * its status and reminder). The caller holds the
 * cart's row lock (core/checkout/order-views.ts lockOrder) until its transaction ends, so sequences
 * never collide and follow the order of the transactions that recorded them. The event's deliveries
 * are written with it, one per endpoint of the merchant that wants it at this moment.
 */
export async function recordLockedCartEvent(
  tx: Sql,
  ctx: OrderContext,
  order: OrderRow,
  input: CartEventInput,
): Promise<{ eventId: string; sequence: number }> {
  const subject = subjectOf(input);
  // Both asked at once, one round trip on the transaction's connection: the sequence is wasted only on a repeat.
  const [existing, sequence] = await Promise.all([
    findCartEvent(tx, input.cartId, input.event, input.status, input.refund?.id, subject),
    nextEventSequence(tx, input.cartId),
  ]);
  if (existing) return { eventId: existing.id, sequence: existing.sequence };
  const body = cartEventBody(orderDataOf(order, ctx), order.environment, input, sequence);
  await insertEventWithDeliveries(tx, ctx.keyring, {
    platformUuid: order.platformUuid,
    body,
    ...(subject ? { subject } : {}),
    subscribed: subscribedEndpoints(tx, order.platformUuid, input.event),
  });
  return { eventId: body.id, sequence };
}

/** What tells apart the events a cart may have several of under one name and status (core/webhooks/event-store.ts findCartEvent). */
function subjectOf(input: CartEventInput): string | undefined {
  if (input.dispute) return `dispute:${input.dispute.id}:${input.dispute.status}${input.dispute.reminder ? `:r${input.dispute.reminder}` : ''}`;
  return undefined;
}
