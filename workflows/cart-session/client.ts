import {
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { AuthorizationHold, HoldAnswer } from '../../core/orders/authorization.js';
import { ACTION_REFUSED } from '../../core/checkout/session.js';
import { WORKFLOW_TASK_TIMEOUT_MS } from '../../core/temporal/worker-loss.js';
import { captureUpdate, cartWorkflowId, searchAttributes, voidUpdate, type CartSessionInput, type HoldRefusalDetails } from './messages.js';
import { sessionMetadata, type SessionFacts } from './operator-details.js';
import { cartSession } from './workflow.js';

export type CartSessionHandle = WorkflowHandle<typeof cartSession>;

/**
 * Starts the session of one cart, by function reference so its input is type-checked here. One
 * workflow per cartId, ever: a second start with the same id is refused, not merged. `facts` give
 * the Temporal UI its summary and details (no personal data: workflows/cart-session/operator-details.ts).
 * `requestEagerStart` only with a client over a NativeConnection a worker of this process polls on
 * (core/temporal/connection.ts, `withEagerStarts`).
 */
export function startCartSession(
  client: Client,
  options: {
    taskQueue: string;
    input: CartSessionInput;
    storeName: string;
    workflowId?: string;
    facts?: Omit<SessionFacts, 'amount' | 'currency'>;
    requestEagerStart?: boolean;
  },
): Promise<CartSessionHandle> {
  const { input, facts } = options;
  return client.workflow.start(cartSession, {
    workflowId: options.workflowId ?? cartWorkflowId(input.cartId),
    taskQueue: options.taskQueue,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    ...(options.requestEagerStart ? { requestEagerStart: true } : {}),
    // A task held by a worker that died is retried elsewhere after this; the page's deadlines outlast it (core/temporal/worker-loss.ts).
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

/** How long a capture or void request waits for the processor's answer before it answers with the order still `authorized`. */
const HOLD_ANSWER_WAIT_MS = 10_000;

/**
 * The capture and void of an authorized session (core/orders/authorization.ts), as updates with one id
 * per request: `capture-<cartId>-<amount>` and `void-<cartId>`. A repeated request is the same update,
 * and gets its outcome; a capture of another amount is another update, which the validator refuses
 * once the hold is decided, saying how (HoldRefusalDetails). Accepted or refused by the workflow's
 * validator first; then the outcome is awaited for a while.
 */
export function authorizationHold(client: Client, waitMs = HOLD_ANSWER_WAIT_MS): AuthorizationHold {
  /** The validator's refusal, which the server reports when the update starts or, having admitted it, with its outcome. */
  const refusalIn = (error: unknown): HoldAnswer | undefined => {
    const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && (cause.type === ACTION_REFUSED.notAuthorized || cause.type === ACTION_REFUSED.invalidCaptureAmount)) {
      const decided = (cause.details?.[0] as Partial<HoldRefusalDetails> | undefined)?.decided;
      return { outcome: 'refused', reason: cause.type, message: cause.message, ...(decided ? { decided } : {}) };
    }
    return undefined;
  };
  const run = async (cartId: string, start: (handle: CartSessionHandle) => Promise<{ result(): Promise<unknown> }>): Promise<HoldAnswer> => {
    const handle = cartSessionHandle(client, cartId);
    let update: { result(): Promise<unknown> };
    try {
      update = await start(handle);
    } catch (error) {
      const refused = refusalIn(error);
      if (refused) return refused;
      // A session that finished (captured, voided or expired) while the request was on its way holds nothing:
      // the server refuses an update of a closed workflow, in words that vary with its version.
      const closed = error instanceof WorkflowNotFoundError || (await handle.describe().catch(() => undefined))?.status.name !== 'RUNNING';
      if (closed) return { outcome: 'refused', reason: 'not_authorized', message: error instanceof Error ? error.message : String(error) };
      throw error;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
    try {
      return (await Promise.race([update.result(), late])) === 'late' ? { outcome: 'in_progress' } : { outcome: 'settled' };
    } catch (error) {
      const refused = refusalIn(error);
      if (refused) return refused;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    capture: (cartId, amount) =>
      run(cartId, (handle) =>
        handle.startUpdate(captureUpdate, {
          args: [{ amount }],
          updateId: `capture-${cartId}-${amount}`,
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        }),
      ),
    void: (cartId) => run(cartId, (handle) => handle.startUpdate(voidUpdate, { updateId: `void-${cartId}`, waitForStage: WorkflowUpdateStage.ACCEPTED })),
  };
}
