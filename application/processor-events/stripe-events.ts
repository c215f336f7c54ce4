import type Stripe from 'stripe';
import { findDispute } from '../../core/checkout/disputes.js';
import type { DisputeFacts } from '../../core/checkout/dispute-model.js';
import { findOrder, findOrderByPaymentReference } from '../../core/checkout/order-views.js';
import { disputeStatusOf, KEY_METADATA } from '../../core/checkout/payment-processors/stripe.js';
import { STRIPE_CURRENCIES } from '../../core/checkout/payment-processors/stripe-currencies.js';
import { fromProcessorAmount } from '../../core/checkout/processor-amounts.js';
import type { Db } from '../../core/db/client.js';
import { findRefundByProcessorRefundId } from '../../core/orders/refund-ledger.js';
import type { DisputeOpening } from '../../workflows/dispute/client.js';
import type { LateOutcomeInput } from '../../workflows/late-outcome/messages.js';
import type { RefundFailureInput } from '../../workflows/refund-failure/messages.js';

/** A payment's outcome arriving after the session: captured (succeeded) or authorized (manual capture's hold). */
const LATE_PAYMENT_EVENTS: Readonly<Record<string, boolean>> = { 'payment_intent.succeeded': true, 'payment_intent.amount_capturable_updated': false };
/** Ledger statuses of a session that ended without an order: a payment for one must go back (docs/decisions/late-outcomes.md). */
const WITHOUT_ORDER: ReadonlySet<string> = new Set(['abandoned', 'failed', 'cancelled']);

/** A refund's own events; one whose status is failed reverses a refund we recorded as succeeded. */
const REFUND_EVENTS: ReadonlySet<string> = new Set(['charge.refund.updated', 'refund.updated', 'refund.failed']);
/** The failure code of a failed refund whose processor gives no reason. */
const REFUND_FAILED = 'refund_failed';

/** The Stripe events we act on; any other is answered 200 and ignored. */
const DISPUTE_EVENTS: ReadonlySet<string> = new Set([
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
]);

/** What a verified Stripe event asks of us: a dispute's workflow told, or nothing (a type or an order we do not know). */
export type StripeEventWork =
  | { kind: 'dispute'; opening: DisputeOpening }
  | { kind: 'late_outcome'; input: LateOutcomeInput }
  | { kind: 'refund_failure'; input: RefundFailureInput }
  | { kind: 'ignored'; why: string };

const idOf = (value: string | { id: string } | null | undefined): string | undefined => (typeof value === 'string' ? value : value?.id);

/** The object a Stripe event is about, kept with the event (core/checkout/processor-events.ts). */
export function stripeObjectId(event: Stripe.Event): string | undefined {
  const object = event.data.object as { id?: unknown };
  return typeof object.id === 'string' ? object.id : undefined;
}

/** Reads what a verified event asks of us; the ledger finds its order by the dispute, else by the PaymentIntent. */
export async function stripeEventWork(db: Db, event: Stripe.Event): Promise<StripeEventWork> {
  if (event.type in LATE_PAYMENT_EVENTS)
    return latePaymentWork(db, event.id, event.data.object as Stripe.PaymentIntent, LATE_PAYMENT_EVENTS[event.type] === true);
  if (event.type === 'radar.early_fraud_warning.created') {
    const warning = event.data.object;
    const order = await orderOfIntent(db, idOf(warning.payment_intent));
    if (!order) return { kind: 'ignored', why: `no order of ours holds the payment of early fraud warning ${warning.id}` };
    return {
      kind: 'late_outcome',
      input: { kind: 'fraud_warning', eventId: event.id, cartId: order.cartId, warnedAt: new Date(warning.created * 1000).toISOString() },
    };
  }
  if (REFUND_EVENTS.has(event.type)) return refundFailureWork(db, event.id, event.data.object as Stripe.Refund);
  if (!DISPUTE_EVENTS.has(event.type)) return { kind: 'ignored', why: `type ${event.type} is not one we act on` };
  const dispute = event.data.object as Stripe.Dispute;
  const known = await findDispute(db, dispute.id);
  const order = known ? await findOrder(db, known.cartId) : await orderOfIntent(db, idOf(dispute.payment_intent));
  if (!order) return { kind: 'ignored', why: `no order of ours holds the payment of dispute ${dispute.id}` };
  const dueBy = dispute.evidence_details?.due_by;
  const facts: DisputeFacts = {
    status: disputeStatusOf(dispute.status),
    // Stripe counts in its own units per currency (5 ISK is 500); the ledger and the webhooks count in
    // ISO 4217's. A dispute is in its charge's currency, which is the order's.
    amount: fromProcessorAmount(STRIPE_CURRENCIES, 'stripe', order.currency, dispute.amount),
    reason: dispute.reason,
    // A dispute past its deadline (or an inquiry without one) is due now: no reminder is left to send.
    evidenceDueBy: new Date((dueBy ?? event.created) * 1000).toISOString(),
  };
  return {
    kind: 'dispute',
    opening: { disputeId: dispute.id, cartId: order.cartId, platformUuid: order.platformUuid, decidedBy: 'processor', facts },
  };
}

const orderOfIntent = async (db: Db, intentId: string | undefined) => (intentId ? findOrderByPaymentReference(db, intentId) : undefined);

/** A payment whose cart's session already ended without an order; any other is the session's own, already in the ledger. */
async function latePaymentWork(db: Db, eventId: string, intent: Stripe.PaymentIntent, captured: boolean): Promise<StripeEventWork> {
  const cartId = intent.metadata?.[KEY_METADATA];
  const order = cartId ? await findOrder(db, cartId) : undefined;
  if (!order) return { kind: 'ignored', why: `payment ${intent.id} is not one of our carts'` };
  if (!WITHOUT_ORDER.has(order.status)) return { kind: 'ignored', why: `payment ${intent.id}: its cart is ${order.status}, the session's own to record` };
  return { kind: 'late_outcome', input: { kind: 'late_payment', eventId, cartId: order.cartId, chargeId: intent.id, captured } };
}

/** A refund the processor failed after accepting it; a refund still on its way, or not ours, or already failed, asks nothing. */
async function refundFailureWork(db: Db, eventId: string, refund: Stripe.Refund): Promise<StripeEventWork> {
  if (refund.status !== 'failed') return { kind: 'ignored', why: `refund ${refund.id} is ${refund.status ?? 'without a status'}, not failed` };
  const ours = await findRefundByProcessorRefundId(db, refund.id);
  if (!ours) return { kind: 'ignored', why: `refund ${refund.id} is not one of ours` };
  if (ours.status !== 'succeeded') return { kind: 'ignored', why: `refund ${refund.id} is ${ours.status} in our ledger, not succeeded` };
  return { kind: 'refund_failure', input: { eventId, refundId: ours.id, cartId: ours.cartId, failureCode: refund.failure_reason ?? REFUND_FAILED } };
}
