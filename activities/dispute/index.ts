import { ApplicationFailure } from '@temporalio/activity';
import { DISPUTE_ANSWER_REFUSED, type DisputeAnswer, type DisputeFacts, type DisputeStatus } from '../../core/checkout/dispute-model.js';
import { disputeEvidenceOf, recordDispute } from '../../core/checkout/disputes.js';
import { lockOrder } from '../../core/checkout/order-views.js';
import { DisputeAnswerRefusedError, type PaymentProcessor } from '../../core/checkout/payment-processor.js';
import type { Logger } from '../../core/logger.js';
import { recordLockedCartEvent } from '../../core/webhooks/cart-events.js';
import type { CartEventInput } from '../../core/webhooks/events.js';
import { sendCartEvent, type CartEventDeps } from '../shared/cart-events.js';
import { processorCalls } from '../shared/processor-call.js';

/** The statuses of an order whose payment was captured: what a dispute can be about. */
const DISPUTABLE: ReadonlySet<string> = new Set(['paid', 'partially_refunded', 'refunded']);

/**
 * What the dispute workflow (workflows/dispute/) does: the dispute in the ledger with its event for the
 * merchant, and the merchant's answer at the processor. Every step is safe to retry.
 */
export function createDisputeActivities(deps: CartEventDeps & { logger: Logger; paymentProcessor: PaymentProcessor }) {
  const { db, keyring, logger, paymentProcessor } = deps;
  const answered = processorCalls({ logger, processor: paymentProcessor.name });

  return {
    /**
     * The dispute as the processor states it, and its event in the same transaction under the cart's
     * lock: `order_disputed` when it opens, `order_updated` as it moves or its deadline nears (a reminder).
     * Idempotent: a retry finds the event already recorded (core/webhooks/cart-events.ts) and sends it again.
     */
    async recordDisputeStep(input: { disputeId: string; cartId: string; facts: DisputeFacts; opening?: boolean; reminder?: number }): Promise<void> {
      const { disputeId, cartId, facts, reminder } = input;
      const { event, recorded } = await db.begin(async (tx) => {
        const order = await lockOrder(tx, cartId);
        if (!order) throw ApplicationFailure.nonRetryable(`dispute ${disputeId}: cart ${cartId} is not in the ledger`);
        // A dispute follows a payment: one that arrives before the session recorded it waits for it, so order_created comes first.
        if (!DISPUTABLE.has(order.status))
          throw ApplicationFailure.retryable(`dispute ${disputeId}: cart ${cartId} is ${order.status}, not paid yet`, 'OrderNotPaidYet');
        const row = await recordDispute(tx, { disputeId, cartId, facts });
        // Read again under the lock already held: the event's order carries the dispute just recorded.
        const locked = await lockOrder(tx, cartId);
        const event: CartEventInput = {
          cartId,
          event: input.opening ? 'order_disputed' : 'order_updated',
          status: order.status,
          dispute: {
            id: row.id,
            amount: row.amount,
            reason: row.reason,
            status: row.status,
            evidenceDueBy: row.evidenceDueBy.toISOString(),
            ...(reminder ? { reminder } : {}),
          },
        };
        return { event, recorded: await recordLockedCartEvent(tx, deps, locked ?? order, event) };
      });
      logger.info({ disputeId, cartId, status: facts.status, reminder, event: event.event }, 'dispute recorded');
      await sendCartEvent(deps, event, recorded);
    },

    /**
     * The merchant's recorded answer at the processor; the evidence opened here, never passed through the
     * workflow. A refusal (the processor's, or none to send) fails the activity for good: asking again
     * would be refused again.
     */
    async sendDisputeAnswer(input: { disputeId: string; answer: DisputeAnswer }): Promise<DisputeStatus> {
      try {
        return await sendAnswer(input.disputeId, input.answer);
      } catch (err) {
        if (err instanceof DisputeAnswerRefusedError) throw ApplicationFailure.nonRetryable(err.message, DISPUTE_ANSWER_REFUSED);
        throw err;
      }
    },
  };

  async function sendAnswer(disputeId: string, answer: DisputeAnswer): Promise<DisputeStatus> {
    const takesNoAnswers = () => new DisputeAnswerRefusedError(`${paymentProcessor.name} takes no dispute answers`);
    if (answer === 'accept') {
      if (!paymentProcessor.acceptDispute) throw takesNoAnswers();
      return answered({ disputeId }, () => paymentProcessor.acceptDispute!({ disputeId }));
    }
    const evidence = await disputeEvidenceOf(db, keyring, disputeId);
    if (!evidence) throw new DisputeAnswerRefusedError(`dispute ${disputeId} has no evidence recorded`);
    if (!paymentProcessor.submitDisputeEvidence) throw takesNoAnswers();
    return answered({ disputeId }, () => paymentProcessor.submitDisputeEvidence!({ disputeId, evidence }));
  }
}

export type DisputeActivities = ReturnType<typeof createDisputeActivities>;
