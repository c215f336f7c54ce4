import type { Keyring } from '../../core/crypto.js';
import type { Db, Sql } from '../../core/db/client.js';
import { lockOrder } from '../../core/checkout/order-views.js';
import { eventDeliveries, type EventDelivery } from '../../core/webhooks/event-store.js';
import type { OrderContext } from '../../core/checkout/order-model.js';
import { recordLockedCartEvent } from '../../core/webhooks/cart-events.js';
import { isLastCartEvent, type CartEventInput } from '../../core/webhooks/events.js';
import type { DeliveryRequest, RequestDelivery } from '../../core/webhooks/delivery.js';

export interface CartEventDeps {
  db: Db;
  /** Seals the customer's contact in the stored body (core/webhooks/event-body-seal.ts). */
  keyring: Keyring;
  /** With the keyring, what an event's order needs (core/checkout/order-model.ts OrderContext): its recoveryUrl is under it. */
  checkoutBaseUrl: string;
  /** Hands the recorded event to the cart's delivery workflow (the worker passes workflows/webhook-delivery/client.ts requestDelivery). */
  requestDelivery: RequestDelivery;
}

/**
 * Records a cart's event with the next sequence number and its final body, then sends it
 * (sendCartEvent). Idempotent on (cart, event, status), and for `order_refunded` on the refund too: an
 * activity retry after a lost response returns the event already recorded and sends it again, which
 * the delivery side ignores.
 */
export function createCartEventActivities(deps: CartEventDeps) {
  return {
    async recordCartEvent(input: CartEventInput): Promise<RecordedEvent> {
      const recorded = await deps.db.begin((tx) => recordCartEventIn(tx, deps, input));
      await sendCartEvent(deps, input, recorded);
      return recorded;
    },
  };
}

export type RecordedEvent = { eventId: string; sequence: number };

/** Records the event inside the caller's transaction, holding the cart's row lock until it ends. */
export async function recordCartEventIn(tx: Sql, ctx: OrderContext, input: CartEventInput): Promise<RecordedEvent> {
  const order = await lockOrder(tx, input.cartId);
  if (!order) throw new Error(`cart ${input.cartId} is not in the ledger`);
  return recordLockedCartEvent(tx, ctx, order, input);
}

/**
 * A cart session's own attempt at its step's event, to one endpoint where nothing of the cart waits
 * before it (activities/cart-session/ledger.ts): what is left for the delivery workflow, or nothing
 * when the attempt settled it.
 */
export type FirstAttempt = (request: DeliveryRequest, delivery: EventDelivery) => Promise<DeliveryRequest | undefined>;

/**
 * Sends a recorded event to each endpoint that wants it, all endpoints at once, under one rule
 * whoever recorded it: an endpoint never receives a cart's events out of recorded order. An event
 * waits behind the cart's earlier ones still pending at that endpoint, handed to the cart's delivery
 * workflow after them. Handing them over again keeps the order when their recorders raced here
 * (refunds settle concurrently, activities/refund/index.ts); a repeat costs no second send (the
 * workflow drops a repeat of a waiting request, the delivery activity a scheduled one already made).
 * With nothing before it, `firstAttempt` (a session's step) may try it first; otherwise, or for
 * what that attempt left, the delivery workflow sends it.
 */
export async function sendCartEvent(deps: CartEventDeps, input: CartEventInput, recorded: RecordedEvent, firstAttempt?: FirstAttempt): Promise<void> {
  const { db, requestDelivery } = deps;
  const deliveries = await eventDeliveries(db, { ...recorded, cartId: input.cartId });
  // Every endpoint's attempt is over before a failure is thrown, so a retry of the activity never overlaps one.
  const sent = await Promise.allSettled(
    deliveries.map(async (delivery) => {
      if (delivery.status !== 'pending') return;
      const request = scheduledDelivery(input, recorded, delivery.endpointId);
      const left = firstAttempt && delivery.waitingBehind.length === 0 ? await firstAttempt(request, delivery) : request;
      if (!left) return;
      for (const eventId of delivery.waitingBehind) await requestDelivery(input.cartId, { eventId, endpointId: delivery.endpointId, trigger: 'scheduled' });
      await requestDelivery(input.cartId, left);
    }),
  );
  const failed = sent.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The normal schedule's request for a recorded event to one endpoint, marked when it is the cart's last. */
function scheduledDelivery(input: CartEventInput, recorded: RecordedEvent, endpointId: string): DeliveryRequest {
  return { eventId: recorded.eventId, endpointId, trigger: 'scheduled', ...(isLastCartEvent(input) ? { last: true as const } : {}) };
}
