import { ActivityFailure, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { RefundActivities } from '../../activities/refund/index.js';
import { REFUND_NOT_RESERVED, type RefundInput, type RefundOutcome } from './messages.js';

/**
 * The reservation is committed right after the workflow starts (core/orders/request-refund.ts); a few
 * tries over about half a minute tell a slow commit from a rollback.
 */
const { confirmRefundReservation } = proxyActivities<RefundActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 6 },
});

/**
 * An unanswered refund has an unknown outcome: it is asked again under the same key (the refund's id)
 * until the processor answers, which refunds at most once. A refusal is a result, not an error.
 */
const { refundCharge } = proxyActivities<RefundActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

/** Ledger and webhook bookkeeping must not be lost: retried until it succeeds. */
const { settleRefund, failRefund, recordCartEvent } = proxyActivities<RefundActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** One refund of a paid order, from its reserved amount to the processor's answer, the ledger and `order_refunded`. */
export async function refundPayment(input: RefundInput): Promise<RefundOutcome> {
  const { refundId, cartId, amount } = input;
  // The Temporal UI's current details, in words; amounts in minor units (the input carries no currency).
  setCurrentDetails(`confirming the reservation of ${amount} (minor units) for cart ${cartId}`);
  try {
    await confirmRefundReservation({ refundId });
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    return { status: 'failed', failureCode: REFUND_NOT_RESERVED };
  }

  setCurrentDetails(`refunding ${amount} (minor units) at the processor, asked again until it answers`);
  const answer = await refundCharge({ refundId, cartId, amount });
  if (answer.outcome === 'declined') {
    setCurrentDetails(`refused by the processor: ${answer.failureCode}`);
    await failRefund({ refundId, failureCode: answer.failureCode });
    return { status: 'failed', failureCode: answer.failureCode };
  }

  setCurrentDetails('refunded — settling the ledger and recording order_refunded');
  const settled = await settleRefund({ refundId, processorRefundId: answer.processorRefundId });
  await recordCartEvent({
    cartId,
    event: 'order_refunded',
    status: settled.orderStatus,
    refund: settled.refund,
  });
  return { status: 'succeeded' };
}
