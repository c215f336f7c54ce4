import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import { refundFailureWorkflowId, type RefundFailureInput } from './messages.js';
import { refundFailure } from './workflow.js';

/** How the processor's events hand a failed refund to its workflow: one per event, ever. Runs outside the workflow sandbox. */
export function refundFailureWorkflows(client: Client, config: Pick<Config, 'temporal'>) {
  return {
    start: async (processor: string, input: RefundFailureInput): Promise<void> => {
      try {
        await client.workflow.start(refundFailure, {
          workflowId: refundFailureWorkflowId(processor, input.eventId),
          taskQueue: config.temporal.taskQueue,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          staticSummary: `Refund ${input.refundId} of cart ${input.cartId} failed at the processor`,
        });
      } catch (error) {
        // The same event handed over again (a redelivery that raced the first): its workflow already does the work.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    },
  };
}
