import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import { searchAttributes } from '../cart-session/messages.js';
import { refundWorkflowId, type RefundInput } from './messages.js';
import { refundPayment } from './workflow.js';

/**
 * How the refund request (core/orders/request-refund.ts, called by the merchant API and the dashboard)
 * starts a refund's workflow: one workflow per refund id, ever. Runs outside the workflow sandbox.
 */
export function refundWorkflow(client: Client, config: Pick<Config, 'temporal'>) {
  return {
    start: (input: RefundInput) =>
      client.workflow.start(refundPayment, {
        workflowId: refundWorkflowId(input.refundId),
        taskQueue: config.temporal.taskQueue,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [{ key: searchAttributes.merchantId, value: input.platformUuid }],
      }),
    workflowId: refundWorkflowId,
  };
}
