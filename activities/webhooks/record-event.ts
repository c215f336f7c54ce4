import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import { randomToken } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import { lockCart } from '../../core/checkout/cart-ledger.js';
import { findCartEvent, insertEvent, nextEventSequence } from '../../core/webhooks/event-store.js';
import { isLastCartEvent, type CartEventInput, type WebhookEventBody } from '../../core/webhooks/events.js';
import { requestDelivery } from '../../workflows/webhook-delivery/client.js';

export interface WebhookEventDeps {
  config: Config;
  db: Db;
  /** The client that starts delivery; inside a worker, the worker's own (the default). */
  temporalClient?: () => Client;
}

/**
 * Records a cart's event with the next sequence number and its final body, then hands it to the cart's
 * delivery workflow. Idempotent on (cart, event, status), and for `order_refunded` on the refund too: an activity retry after a lost response
 * returns the event already recorded and hands it over again, which the delivery side ignores.
 */
export function createWebhookEventActivities(deps: WebhookEventDeps) {
  const { db } = deps;
  const temporalClient = deps.temporalClient ?? (() => Context.current().client);

  async function record(input: CartEventInput): Promise<{ eventId: string; sequence: number }> {
    return db.begin(async (tx) => {
      const cart = await lockCart(tx, input.cartId);
      if (!cart) throw new Error(`cart ${input.cartId} is not in the ledger`);
      const existing = await findCartEvent(tx, input.cartId, input.event, input.status, input.refund?.id);
      if (existing) return { eventId: existing.id, sequence: existing.sequence };
      const next = await nextEventSequence(tx, input.cartId);
      const body: WebhookEventBody = {
        id: `evt_${randomToken(18)}`,
        event: input.event,
        createdAt: new Date().toISOString(),
        environment: cart.environment,
        sequence: next,
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
                },
              }
            : {}),
          ...(input.failureCode ? { failureCode: input.failureCode } : {}),
          ...(input.refund ? { refund: input.refund } : {}),
        },
      };
      await insertEvent(tx, cart.platformUuid, body);
      return { eventId: body.id, sequence: next };
    });
  }

  return {
    async recordCartEvent(input: CartEventInput): Promise<{ eventId: string; sequence: number }> {
      const recorded = await record(input);
      await requestDelivery(temporalClient(), deps.config, input.cartId, {
        eventId: recorded.eventId,
        trigger: 'scheduled',
        ...(isLastCartEvent(input) ? { last: true as const } : {}),
      });
      return recorded;
    },
  };
}
