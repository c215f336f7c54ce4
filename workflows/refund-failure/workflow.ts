import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { RefundActivities, RefundReversal } from '../../activities/refund/index.js';
import type { RefundFailureInput } from './messages.js';

/** The ledger and the merchant must learn of it, whatever it takes: asked again until PostgreSQL answers. */
const { reverseRefund } = proxyActivities<RefundActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * A refund the processor failed after accepting it (docs/decisions/late-outcomes.md): the refund fails, the
 * order's refunded total and status go back, and order_updated tells the merchant; once per refund.
 */
export async function refundFailure(input: RefundFailureInput): Promise<RefundReversal> {
  setCurrentDetails(`refund ${input.refundId} of cart ${input.cartId} failed at the processor (${input.failureCode}): reversing it`);
  const result = await reverseRefund({ refundId: input.refundId, failureCode: input.failureCode });
  setCurrentDetails(`refund ${input.refundId} of cart ${input.cartId}: ${result.replace('_', ' ')}`);
  return result;
}
