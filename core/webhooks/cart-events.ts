import { randomToken } from '../crypto.js';
import type { LedgerCart } from '../checkout/cart-ledger.js';
import type { Sql } from '../db/client.js';
import { subscribedEndpointIds } from '../merchants/merchant-store.js';
import { findCartEvent, insertDeliveries, insertEvent, nextEventSequence } from './event-store.js';
import type { CartEventInput, WebhookEventBody } from './events.js';

/** The body of a cart's event, fixed once recorded (docs/decisions/webhooks.md): what the workflow says happened, and the ledger's cart. */
export function cartEventBody(cart: LedgerCart, input: CartEventInput, sequence: number): WebhookEventBody {
  return {
    id: `evt_${randomToken(18)}`,
    event: input.event,
    createdAt: new Date().toISOString(),
    environment: cart.environment,
    sequence,
    data: {
      cartId: input.cartId,
      status: input.status,
      amount: cart.amount,
      currency: cart.currency,
      items: cart.cart.items,
      extra: cart.cart.extra,
      createdWith: cart.createdWith,
      ...(input.payment
        ? {
            payment: {
              brand: input.payment.brand,
              last4: input.payment.last4,
              ...(input.payment.failureCode ? { failureCode: input.payment.failureCode } : {}),
              ...(input.payment.captureMethod ? { captureMethod: input.payment.captureMethod } : {}),
              ...(input.payment.capturedAmount !== undefined ? { capturedAmount: input.payment.capturedAmount } : {}),
              ...(input.payment.threeDSecure ? { threeDSecure: { result: input.payment.threeDSecure.result } } : {}),
            },
          }
        : {}),
      ...(input.failureCode ? { failureCode: input.failureCode } : {}),
      ...(input.refund ? { refund: input.refund } : {}),
      ...(input.cancelledBy ? { cancelledBy: input.cancelledBy } : {}),
    },
  };
}

/**
 * Records the cart's event with the next sequence number, or finds it when already recorded
 * (idempotent on cart, event and status, and for `order_refunded` on the refund). The caller holds the
 * cart's row lock (core/checkout/cart-ledger.ts lockCart) until its transaction ends, so sequences
 * never collide and follow the order of the transactions that recorded them. The event's deliveries
 * are written with it, one per endpoint of the merchant that wants it at this moment.
 */
export async function recordLockedCartEvent(tx: Sql, cart: LedgerCart, input: CartEventInput): Promise<{ eventId: string; sequence: number }> {
  const existing = await findCartEvent(tx, input.cartId, input.event, input.status, input.refund?.id);
  if (existing) return { eventId: existing.id, sequence: existing.sequence };
  const sequence = await nextEventSequence(tx, input.cartId);
  const body = cartEventBody(cart, input, sequence);
  await insertEvent(tx, cart.platformUuid, body);
  await insertDeliveries(tx, body.id, await subscribedEndpointIds(tx, cart.platformUuid, input.event));
  return { eventId: body.id, sequence };
}
