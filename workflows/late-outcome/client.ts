import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import { lateOutcomeWorkflowId, type LateOutcomeInput } from './messages.js';
import { lateOutcome } from './workflow.js';

/** How the processor's events hand a late outcome to its workflow: one per event, ever. Runs outside the workflow sandbox. */
export function lateOutcomeWorkflows(client: Client, config: Pick<Config, 'temporal'>) {
  return {
    start: async (processor: string, input: LateOutcomeInput): Promise<void> => {
      try {
        await client.workflow.start(lateOutcome, {
          workflowId: lateOutcomeWorkflowId(processor, input.eventId),
          taskQueue: config.temporal.taskQueue,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          staticSummary:
            input.kind === 'late_payment' ? `Late payment ${input.chargeId} for cart ${input.cartId}` : `Early fraud warning on cart ${input.cartId}`,
        });
      } catch (error) {
        // The same event handed over again (a redelivery that raced the first): its workflow already does the work.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    },
  };
}
