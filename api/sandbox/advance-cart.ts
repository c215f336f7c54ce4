import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { CartOwner } from '../../core/checkout/cart-ledger.js';
import { findOwnerCart } from '../../core/checkout/order-views.js';
import { ACTION_REFUSED } from '../../core/checkout/session.js';
import { withDeadline } from '../../core/temporal/connection.js';
import { UPDATE_HANDOVER_MS } from '../../core/temporal/worker-loss.js';
import { cartSessionHandle } from '../../workflows/cart-session/client.js';
import { advanceClockUpdate, type CartSessionState, type ClockTarget } from '../../workflows/cart-session/messages.js';
import type { SandboxDeps } from './deps.js';
import { cartNotFound, nothingToAdvance } from './refusals.js';

/** The timer's own path (a void at the processor, the ledger, the event) takes seconds; the rest covers a worker handover. */
const ADVANCE_DEADLINE_MS = UPDATE_HANDOVER_MS + 20_000;

/**
 * The sandbox test clock (`POST /v2/sandbox/carts/{cartId}/advance`): fires one of the session's
 * running timers now, through the workflow's advanceClock update (workflows/cart-session/test-clock.ts),
 * so what follows is what the timer does: `order_abandoned`, the hold's void and `order_cancelled`, or
 * the recovery reminder. Any cart of the merchant's sandbox, however it was driven: no customer acts
 * here, and a page still open on it learns the outcome as from the real timer.
 */
export async function advanceSandboxCart(deps: SandboxDeps, request: { owner: CartOwner; cartId: string; to: ClockTarget }): Promise<CartSessionState> {
  const { cartId, to } = request;
  if (!(await findOwnerCart(deps.db, request.owner, cartId))) throw cartNotFound(cartId);
  const handle = cartSessionHandle(deps.temporal.client, cartId);
  try {
    return await withDeadline(deps.temporal, ADVANCE_DEADLINE_MS, () =>
      handle.executeUpdate(advanceClockUpdate, { args: [{ to }], updateId: `advance-${cartId}-${to}` }),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw nothingToAdvance(to, 'This session has ended and runs no timer.');
    if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    const refusal = err.cause instanceof ApplicationFailure ? err.cause : undefined;
    if (refusal?.type === ACTION_REFUSED.nothingToAdvance) throw nothingToAdvance(to, refusal.message);
    // No handler: a session started before the test clock existed.
    throw nothingToAdvance(to, 'This session was started before sandbox sessions could be advanced.');
  }
}
