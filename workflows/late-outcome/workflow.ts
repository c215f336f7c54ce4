import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { LateOutcomeActivities } from '../../activities/late-outcome/index.js';
import type { LateOutcomeInput, LateOutcomeResult } from './messages.js';

/** Money goes back, and the ledger is marked, whatever it takes: asked again until the processor or PostgreSQL answers, each under its own key. */
const { settleLatePayment, markEarlyFraudWarning } = proxyActivities<LateOutcomeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

/**
 * What the processor said after our session decided (docs/decisions/late-outcomes.md): a late payment
 * for a cart without an order is voided (authorized) or refunded (captured), never kept; an early
 * fraud warning marks the order.
 */
export async function lateOutcome(input: LateOutcomeInput): Promise<LateOutcomeResult> {
  if (input.kind === 'fraud_warning') {
    setCurrentDetails(`early fraud warning on cart ${input.cartId}: marking the order`);
    await markEarlyFraudWarning({ cartId: input.cartId, warnedAt: input.warnedAt });
    return 'marked';
  }
  setCurrentDetails(
    `late ${input.captured ? 'captured' : 'authorized'} payment ${input.chargeId} for cart ${input.cartId}: ${input.captured ? 'refunding' : 'voiding'} it unless the cart has its order`,
  );
  const result = await settleLatePayment({ cartId: input.cartId, chargeId: input.chargeId, captured: input.captured });
  setCurrentDetails(`late payment ${input.chargeId} for cart ${input.cartId}: ${result.replace('_', ' ')}`);
  return result;
}
