import type Stripe from 'stripe';
import { findDispute } from '../../core/checkout/disputes.js';
import type { DisputeFacts } from '../../core/checkout/dispute-model.js';
import { findOrder, findOrderByPaymentReference } from '../../core/checkout/order-views.js';
import { disputeStatusOf } from '../../core/checkout/payment-processors/stripe.js';
import type { Db } from '../../core/db/client.js';
import type { DisputeOpening } from '../../workflows/dispute/client.js';

/** The Stripe events we act on; any other is answered 200 and ignored. */
const DISPUTE_EVENTS: ReadonlySet<string> = new Set([
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
]);

/** What a verified Stripe event asks of us: a dispute's workflow told, or nothing (a type or an order we do not know). */
export type StripeEventWork = { kind: 'dispute'; opening: DisputeOpening } | { kind: 'ignored'; why: string };

const idOf = (value: string | { id: string } | null | undefined): string | undefined => (typeof value === 'string' ? value : value?.id);

/** The object a Stripe event is about, kept with the event (core/checkout/processor-events.ts). */
export function stripeObjectId(event: Stripe.Event): string | undefined {
  const object = event.data.object as { id?: unknown };
  return typeof object.id === 'string' ? object.id : undefined;
}

/** Reads what a verified event asks of us; the ledger finds its order by the dispute, else by the PaymentIntent. */
export async function stripeEventWork(db: Db, event: Stripe.Event): Promise<StripeEventWork> {
  if (!DISPUTE_EVENTS.has(event.type)) return { kind: 'ignored', why: `type ${event.type} is not one we act on` };
  const dispute = event.data.object as Stripe.Dispute;
  const known = await findDispute(db, dispute.id);
  const order = known ? await findOrder(db, known.cartId) : await orderOfIntent(db, idOf(dispute.payment_intent));
  if (!order) return { kind: 'ignored', why: `no order of ours holds the payment of dispute ${dispute.id}` };
  const dueBy = dispute.evidence_details?.due_by;
  const facts: DisputeFacts = {
    status: disputeStatusOf(dispute.status),
    amount: dispute.amount,
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
