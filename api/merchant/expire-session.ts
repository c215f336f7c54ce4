import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { CartOwner } from '../../core/checkout/cart-ledger.js';
import { findOwnerCart } from '../../core/checkout/order-views.js';
import type { ExpiredCart } from '../../core/checkout/cart-schema.js';
import { ACTION_REFUSED, type CartStatus } from '../../core/checkout/session.js';
import type { Db } from '../../core/db/client.js';
import { withDeadline, type Temporal } from '../../core/temporal/connection.js';
import { UPDATE_HANDOVER_MS } from '../../core/temporal/worker-loss.js';
import { cartSessionHandle } from '../../workflows/cart-session/client.js';
import { expireUpdate } from '../../workflows/cart-session/messages.js';
import { ApiError } from '../../application/errors.js';

/** The session's own writes (ledger, event, vault) take milliseconds; the rest covers a worker handover. */
export const EXPIRE_DEADLINE_MS = UPDATE_HANDOVER_MS + 10_000;

const paymentInProgress = () =>
  new ApiError(
    'PAYMENT_IN_PROGRESS',
    'The customer has pressed Pay and the payment has no outcome yet, so the session cannot be ended now. Wait for its order_created or order_updated webhook: a failed payment ends the session, a paid one can be refunded.',
    [{ path: 'cartId', message: 'has a payment in progress' }],
  );

const sessionEnded = (status: CartStatus | 'ended') =>
  new ApiError('SESSION_ENDED', `This session has already ended (${status}); there is nothing to expire.`, [
    { path: 'cartId', message: `is not an open session: it is ${status}` },
  ]);

/**
 * Ends an open session of this merchant now (`POST /v2/merchant/carts/{cartId}/expire`): the
 * session becomes `cancelled`, sends `order_cancelled` with `cancelledBy: "merchant"`, and its page
 * tells the customer the store closed it. The ledger answers the cases it knows (unknown, ended, paying)
 * without asking the session; the session's own validator has the last word on a race with the customer.
 * Undefined when the cart is not this merchant's.
 */
export async function expireSession(deps: { db: Db; temporal: Temporal }, owner: CartOwner, cartId: string): Promise<ExpiredCart | undefined> {
  const cart = await findOwnerCart(deps.db, owner, cartId);
  if (!cart) return undefined;
  if (cart.status === 'processing') throw paymentInProgress();
  if (cart.status !== 'pending') throw sessionEnded(cart.status);
  const handle = cartSessionHandle(deps.temporal.client, cartId);
  try {
    // One update id per cart: a retried request is the same update, and gets its recorded answer.
    await withDeadline(deps.temporal, EXPIRE_DEADLINE_MS, () => handle.executeUpdate(expireUpdate, { updateId: `expire-${cartId}` }));
    return { cartId, status: 'cancelled', cancelledBy: 'merchant' };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw sessionEnded('ended');
    if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    const refusal = err.cause instanceof ApplicationFailure ? err.cause.type : undefined;
    if (refusal === ACTION_REFUSED.paymentInProgress) throw paymentInProgress();
    if (refusal === ACTION_REFUSED.sessionClosed) {
      // The session ended between the ledger read and the update; its ledger row may be a moment behind.
      const now = (await findOwnerCart(deps.db, owner, cartId))?.status;
      throw sessionEnded(now && now !== 'pending' ? now : 'ended');
    }
    // No handler: a session started before the expire update existed (workflows/cart-session/messages.ts).
    throw new ApiError(
      'SESSION_NOT_EXPIRABLE',
      'This session was created before sessions could be expired and cannot be ended early; it ends by itself at its expiresOn.',
      [{ path: 'cartId', message: 'names a session created before the expire endpoint existed' }],
    );
  }
}
