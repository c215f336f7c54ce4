import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import type { DisputeAnswer, DisputeFacts } from '../../core/checkout/dispute-model.js';
import { searchAttributes } from '../cart-session/messages.js';
import { disputeAnsweredSignal, disputeUpdatedSignal, disputeWorkflowId, type DisputeInput } from './messages.js';
import { dispute } from './workflow.js';

export type DisputeOpening = Pick<DisputeInput, 'disputeId' | 'cartId' | 'platformUuid' | 'decidedBy'> & { facts: DisputeFacts };

/**
 * How the processor's events, the sandbox and the merchant's answer reach a dispute's workflow: one per
 * dispute id, ever. Runs outside the workflow sandbox.
 */
export function disputeWorkflows(client: Client, config: Pick<Config, 'temporal' | 'disputes'>) {
  return {
    /**
     * Starts the dispute's workflow with the processor's word, or hands that word to the one running
     * (signal-with-start). A word after the dispute closed changes nothing: a closed dispute stays closed.
     */
    tell: (opening: DisputeOpening, options: { startDelayMs?: number } = {}) =>
      client.workflow
        .signalWithStart(dispute, {
          workflowId: disputeWorkflowId(opening.disputeId),
          taskQueue: config.temporal.taskQueue,
          args: [
            {
              disputeId: opening.disputeId,
              cartId: opening.cartId,
              platformUuid: opening.platformUuid,
              opened: opening.facts,
              decidedBy: opening.decidedBy,
              remindersBeforeMs: config.disputes.remindersBeforeMs,
              sandboxReviewMs: config.disputes.sandboxReviewMs,
            },
          ],
          signal: disputeUpdatedSignal,
          signalArgs: [opening.facts],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: [{ key: searchAttributes.merchantId, value: opening.platformUuid }],
          ...(options.startDelayMs ? { startDelay: options.startDelayMs } : {}),
          staticSummary: `Dispute ${opening.disputeId} of cart ${opening.cartId}: ${opening.facts.amount} (minor units) disputed as ${opening.facts.reason}, evidence due by ${opening.facts.evidenceDueBy}`,
        })
        .then(
          () => undefined,
          (error: unknown) => {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          },
        ),
    answered: (disputeId: string, answer: DisputeAnswer) => client.workflow.getHandle(disputeWorkflowId(disputeId)).signal(disputeAnsweredSignal, answer),
  };
}
