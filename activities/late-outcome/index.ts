import { markEarlyFraudWarning } from '../../core/checkout/cart-ledger.js';
import { findOrder } from '../../core/checkout/order-views.js';
import type { PaymentProcessor } from '../../core/checkout/payment-processor.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { processorCalls } from '../shared/processor-call.js';

/** The ledger statuses of a session that ended with an order: a late payment of theirs is the order's own. */
const HAS_ORDER = new Set(['paid', 'authorized', 'partially_refunded', 'refunded']);

/** What the late-outcome workflow (workflows/late-outcome/) does; each step safe to retry under its own key. */
export function createLateOutcomeActivities(deps: { db: Db; logger: Logger; paymentProcessor: PaymentProcessor }) {
  const { db, logger, paymentProcessor } = deps;
  const answered = processorCalls({ logger, processor: paymentProcessor.name });

  return {
    /**
     * The rule of docs/decisions/late-outcomes.md: a payment for a cart whose session ended without an
     * order goes back: voided while only authorized, refunded in full once captured. A cart with its
     * order keeps it; a cart still deciding (pending, processing) is the session's to settle.
     */
    async settleLatePayment(input: { cartId: string; chargeId: string; captured: boolean }): Promise<'voided' | 'refunded' | 'order_exists'> {
      const { cartId, chargeId, captured } = input;
      const order = await findOrder(db, cartId);
      if (!order) throw new Error(`late payment ${chargeId}: cart ${cartId} is not in the ledger`);
      if (HAS_ORDER.has(order.status) || order.status === 'pending' || order.status === 'processing') {
        logger.info({ cartId, chargeId, status: order.status }, 'late payment: the cart has its order, or its session still decides');
        return 'order_exists';
      }
      if (!captured) {
        await answered({ cartId }, () => paymentProcessor.void({ idempotencyKey: `${cartId}:late`, chargeId }));
        logger.warn({ cartId, chargeId, status: order.status }, 'late payment voided: its session had ended without an order');
        return 'voided';
      }
      const result = await answered({ cartId }, () =>
        paymentProcessor.refund({ idempotencyKey: `${cartId}:late-refund`, chargeId, amount: order.amount, currency: order.currency }),
      );
      if (result.outcome !== 'refunded') throw new Error(`late payment ${chargeId} of cart ${cartId}: the refund was refused (${result.declineCode})`);
      logger.warn({ cartId, chargeId, status: order.status }, 'late payment refunded: its session had ended without an order');
      return 'refunded';
    },

    async markEarlyFraudWarning(input: { cartId: string; warnedAt: string }): Promise<void> {
      await markEarlyFraudWarning(db, input.cartId, new Date(input.warnedAt));
    },
  };
}

export type LateOutcomeActivities = ReturnType<typeof createLateOutcomeActivities>;
