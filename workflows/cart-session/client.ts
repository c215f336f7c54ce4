import { WorkflowIdReusePolicy, type Client, type WorkflowHandle } from '@temporalio/client';
import { WORKFLOW_TASK_TIMEOUT_MS } from '../../core/worker-loss.js';
import { cartWorkflowId, searchAttributes, type CartSessionInput } from './messages.js';
import { sessionMetadata, type SessionFacts } from './operator-details.js';
import { cartSession } from './workflow.js';

export type CartSessionHandle = WorkflowHandle<typeof cartSession>;

/**
 * Starts the session of one cart, by function reference so its input is type-checked here. One
 * workflow per cartId, ever: a second start with the same id is refused, not merged. `facts` give
 * the Temporal UI its summary and details (no personal data: workflows/cart-session/operator-details.ts).
 */
export function startCartSession(
  client: Client,
  options: { taskQueue: string; input: CartSessionInput; storeName: string; workflowId?: string; facts?: Omit<SessionFacts, 'amount' | 'currency'> },
): Promise<CartSessionHandle> {
  const { input, facts } = options;
  return client.workflow.start(cartSession, {
    workflowId: options.workflowId ?? cartWorkflowId(input.cartId),
    taskQueue: options.taskQueue,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    // A task held by a worker that died is retried elsewhere after this; the page's deadlines outlast it (core/worker-loss.ts).
    workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT_MS,
    memo: { storeName: options.storeName },
    ...(facts ? sessionMetadata({ ...facts, amount: input.amount, currency: input.currency }) : {}),
    typedSearchAttributes: [
      { key: searchAttributes.merchantId, value: input.platformUuid },
      { key: searchAttributes.cartStatus, value: 'pending' },
      { key: searchAttributes.cartTotal, value: input.amount },
      { key: searchAttributes.currency, value: input.currency },
    ],
  });
}

export function cartSessionHandle(client: Client, cartId: string): CartSessionHandle {
  return client.workflow.getHandle<typeof cartSession>(cartWorkflowId(cartId));
}
