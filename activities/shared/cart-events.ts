import type { Db, Sql } from '../../core/db/client.js';
import { lockCart } from '../../core/checkout/cart-ledger.js';
import { deliveryEndpointIds, pendingRefundEventsBefore } from '../../core/webhooks/event-store.js';
import { recordLockedCartEvent } from '../../core/webhooks/cart-events.js';
import { isLastCartEvent, type CartEventInput } from '../../core/webhooks/events.js';
import type { DeliveryRequest, RequestDelivery } from '../../core/webhooks/delivery.js';

export interface CartEventDeps {
  db: Db;
  /** Hands the recorded event to the cart's delivery workflow (the worker passes workflows/webhook-delivery/client.ts requestDelivery). */
  requestDelivery: RequestDelivery;
}

/**
 * Records a cart's event with the next sequence number and its final body, then hands it to the cart's
 * delivery workflow once per endpoint that wants it (none: recorded, never sent). Idempotent on (cart, event, status), and for `order_refunded` on the refund too: an activity retry after a lost response
 * returns the event already recorded and hands it over again, which the delivery side ignores.
 */
export function createCartEventActivities(deps: CartEventDeps) {
  return {
    async recordCartEvent(input: CartEventInput): Promise<RecordedEvent> {
      const recorded = await deps.db.begin((tx) => recordCartEventIn(tx, input));
      await handOverCartEvent(deps, input, recorded);
      return recorded;
    },
  };
}

export type RecordedEvent = { eventId: string; sequence: number };

/** Records the event inside the caller's transaction, holding the cart's row lock until it ends. */
export async function recordCartEventIn(tx: Sql, input: CartEventInput): Promise<RecordedEvent> {
  const cart = await lockCart(tx, input.cartId);
  if (!cart) throw new Error(`cart ${input.cartId} is not in the ledger`);
  return recordLockedCartEvent(tx, cart, input);
}

/** Hands a recorded event to the cart's delivery workflow, once per endpoint that wants it. */
async function handOverCartEvent(deps: CartEventDeps, input: CartEventInput, recorded: RecordedEvent): Promise<void> {
  const { db, requestDelivery } = deps;
  for (const endpointId of await deliveryEndpointIds(db, recorded.eventId)) {
    // Refunds settle concurrently and record their events as they settle (activities/refund/index.ts),
    // but their workflows may get here in another order: the earlier ones still waiting go first, so the
    // endpoint receives order_refunded in sequence order (a repeated request is ignored by delivery).
    if (input.event === 'order_refunded') {
      for (const earlier of await pendingRefundEventsBefore(db, input.cartId, recorded.sequence, endpointId)) {
        await requestDelivery(input.cartId, { eventId: earlier, endpointId, trigger: 'scheduled' });
      }
    }
    await requestDelivery(input.cartId, scheduledDelivery(input, recorded, endpointId));
  }
}

/** The normal schedule's request for a recorded event to one endpoint, marked when it is the cart's last. */
export function scheduledDelivery(input: CartEventInput, recorded: RecordedEvent, endpointId: string): DeliveryRequest {
  return { eventId: recorded.eventId, endpointId, trigger: 'scheduled', ...(isLastCartEvent(input) ? { last: true as const } : {}) };
}
