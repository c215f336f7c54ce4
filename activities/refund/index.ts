import { ApplicationFailure } from '@temporalio/activity';
import { currencyOfCart, lockCart, paymentReferenceOf, recordRefundedAmount, type LedgerCart } from '../../core/checkout/cart-ledger.js';
import { lockOwnerCart } from '../../core/checkout/order-views.js';
import type { PaymentProcessor } from '../../core/checkout/payment-processor.js';
import type { CartStatus } from '../../core/checkout/session.js';
import type { Keyring } from '../../core/crypto.js';
import type { Db, Sql } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { findRefund, markRefundFailed, markRefundReversed, markRefundSucceeded, succeededRefundAmount } from '../../core/orders/refund-ledger.js';
import { recordLockedCartEvent } from '../../core/webhooks/cart-events.js';
import type { RequestDelivery } from '../../core/webhooks/delivery.js';
import { findRefundEvent } from '../../core/webhooks/event-store.js';
import type { CartEventInput, RefundSummary } from '../../core/webhooks/events.js';
import type { ActivityMetrics } from '../metrics.js';
import { createCartEventActivities, sendCartEvent, type RecordedEvent } from '../shared/cart-events.js';
import { processorCalls } from '../shared/processor-call.js';

export type RefundAnswer = { outcome: 'refunded'; processorRefundId: string } | { outcome: 'declined'; failureCode: string };

export interface SettledRefund {
  orderStatus: CartStatus;
  refund: RefundSummary;
}

/** What a refund the processor failed after accepting it came to: reversed now, or by an earlier run; or not one that had succeeded. */
export type RefundReversal = 'reversed' | 'already_reversed' | 'not_succeeded';

/** ApplicationFailure type while a refund's reservation is not visible yet (its transaction has not committed). */
const REFUND_NOT_VISIBLE = 'RefundNotVisible';

/**
 * What the refund workflow (workflows/refund/) does with the processor and the ledger, and the
 * `order_refunded` event it records; every step is safe to retry.
 */
export function createRefundActivities(deps: {
  db: Db;
  keyring: Keyring;
  checkoutBaseUrl: string;
  logger: Logger;
  paymentProcessor: PaymentProcessor;
  requestDelivery: RequestDelivery;
  metrics: ActivityMetrics;
}) {
  const { db, logger, paymentProcessor, metrics } = deps;
  const processor = paymentProcessor.name;
  const answered = processorCalls({ logger, processor });

  /** The cart's row stays locked until the transaction ends, as for a reservation: one settlement at a time per cart. */
  const withLockedCart = <T>(refundId: string, work: (tx: Sql, cartId: string, cart: LedgerCart) => Promise<T>) =>
    db.begin(async (tx) => {
      const refund = await findRefund(tx, refundId);
      if (!refund) throw new Error(`refund ${refundId} is not in the ledger`);
      const cart = await lockCart(tx, refund.cartId);
      if (!cart) throw new Error(`cart ${refund.cartId} is not in the ledger`);
      return work(tx, refund.cartId, cart);
    });

  return {
    ...createCartEventActivities(deps),

    /** Succeeds once the refund's reserving transaction has committed; never touches the processor. */
    async confirmRefundReservation(input: { refundId: string }): Promise<void> {
      if (!(await findRefund(db, input.refundId))) {
        throw ApplicationFailure.retryable(`refund ${input.refundId} is not reserved (yet)`, REFUND_NOT_VISIBLE);
      }
    },

    /**
     * The cart's charge is the payment reference the ledger holds (activities/cart-session/payments.ts
     * stores it at approval); an order without one is looked up by the charge's own idempotency key
     * (the cartId). It is refunded under the refund's id: a retry after a lost answer gets the same refund back.
     */
    async refundCharge(input: { refundId: string; cartId: string; amount: number }): Promise<RefundAnswer> {
      const { refundId, cartId, amount } = input;
      let chargeId = await paymentReferenceOf(db, cartId);
      if (!chargeId) {
        const found = await answered({ refundId }, () => paymentProcessor.lookup({ idempotencyKey: cartId }));
        if (!found.found || found.result.outcome !== 'approved') {
          logger.warn({ refundId, cartId, processor }, 'refund: the processor knows no approved charge for this cart');
          metrics.refunds.inc({ outcome: 'declined' });
          return { outcome: 'declined', failureCode: 'charge_not_found' };
        }
        chargeId = found.result.chargeId;
      }
      const currency = await currencyOfCart(db, cartId);
      if (!currency) throw new Error(`refund ${refundId}: cart ${cartId} is not in the ledger`);
      const result = await answered({ refundId }, () => paymentProcessor.refund({ idempotencyKey: refundId, chargeId, amount, currency }));
      logger.info({ refundId, cartId, processor, amount, outcome: result.outcome }, 'refund');
      metrics.refunds.inc({ outcome: result.outcome });
      return result.outcome === 'refunded'
        ? { outcome: 'refunded', processorRefundId: result.refundId }
        : { outcome: 'declined', failureCode: result.declineCode };
    },

    /**
     * Marks the refund succeeded and moves the ledger to partially_refunded or refunded, in one
     * transaction. Idempotent: a retry returns what the first run recorded, so the event is the same.
     */
    settleRefund: (input: { refundId: string; processorRefundId: string }): Promise<SettledRefund> =>
      withLockedCart(input.refundId, async (tx, cartId, cart) => {
        const pending = await findRefund(tx, input.refundId);
        let refund = pending;
        if (pending?.status === 'pending') {
          const refundedTotalAfter = (await succeededRefundAmount(tx, cartId)) + pending.amount;
          refund = await markRefundSucceeded(tx, input.refundId, { processorRefundId: input.processorRefundId, refundedTotalAfter });
          await recordRefundedAmount(tx, cartId, refundedTotalAfter);
        }
        if (refund?.status !== 'succeeded' || refund.refundedTotalAfter === null) {
          throw ApplicationFailure.nonRetryable(`refund ${input.refundId} cannot succeed: it is ${refund?.status ?? 'missing'}`);
        }
        const order = await lockOwnerCart(tx, cart, cartId);
        if (!order) throw new Error(`cart ${cartId} is not in the ledger`);
        const settled: SettledRefund = {
          // From this refund's own total, not the ledger's current status: a retry after a later refund says the same.
          orderStatus: refund.refundedTotalAfter >= cart.capturedAmount ? 'refunded' : 'partially_refunded',
          refund: { id: refund.id, amount: refund.amount, refundedTotal: refund.refundedTotalAfter, reason: refund.reason },
        };
        // Its order_refunded is recorded here, under the cart's lock with the settlement, so sequences follow
        // settlement order and refundedTotal never goes backwards; the workflow's recordCartEvent then finds it.
        await recordLockedCartEvent(tx, deps, order, { cartId, event: 'order_refunded', status: settled.orderStatus, refund: settled.refund });
        return settled;
      }),

    /**
     * The processor failed a refund it had accepted (docs/decisions/late-outcomes.md): the refund fails, the
     * order's refunded total and status go back without it, and order_updated (data.refund, status failed) is
     * recorded with them under the cart's lock, then sent. Safe to retry and to ask again for the same refund:
     * one already reversed is not reversed again, its event is only handed over again.
     */
    async reverseRefund(input: { refundId: string; failureCode: string }): Promise<RefundReversal> {
      const { refundId, failureCode } = input;
      const outcome = await withLockedCart(
        refundId,
        async (tx, cartId, cart): Promise<{ kind: RefundReversal; event?: CartEventInput; recorded?: RecordedEvent }> => {
          const refund = await findRefund(tx, refundId);
          if (refund?.status === 'succeeded') {
            await markRefundReversed(tx, refundId, failureCode);
            const refundedTotal = await succeededRefundAmount(tx, cartId);
            const status = await recordRefundedAmount(tx, cartId, refundedTotal);
            const order = await lockOwnerCart(tx, cart, cartId);
            if (!order) throw new Error(`cart ${cartId} is not in the ledger`);
            const event: CartEventInput = {
              cartId,
              event: 'order_updated',
              status,
              refund: { id: refundId, amount: refund.amount, refundedTotal, reason: refund.reason, status: 'failed' },
            };
            return { kind: 'reversed', event, recorded: await recordLockedCartEvent(tx, deps, order, event) };
          }
          const earlier = refund?.status === 'failed' ? await findRefundEvent(tx, cartId, 'order_updated', refundId) : undefined;
          if (!earlier) return { kind: 'not_succeeded' };
          return {
            kind: 'already_reversed',
            event: { cartId, event: 'order_updated', status: earlier.status },
            recorded: { eventId: earlier.id, sequence: earlier.sequence },
          };
        },
      );
      if (outcome.event && outcome.recorded) await sendCartEvent(deps, outcome.event, outcome.recorded);
      logger.warn({ refundId, failureCode, outcome: outcome.kind }, 'refund failed at the processor after it had succeeded');
      return outcome.kind;
    },

    /** The processor refused: the refund fails with its code and its amount is no longer reserved. */
    async failRefund(input: { refundId: string; failureCode: string }): Promise<void> {
      await withLockedCart(input.refundId, (tx) => markRefundFailed(tx, input.refundId, input.failureCode));
    },
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
