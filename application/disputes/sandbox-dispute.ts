import { randomToken } from '../../core/crypto.js';
import type { CartOwner } from '../../core/checkout/cart-ledger.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { findOwnerCart, type OrderRow } from '../../core/checkout/order-views.js';
import { orderNotFoundMessage } from '../../core/orders/orders.js';
import type { DisputeOpening, disputeWorkflows } from '../../workflows/dispute/client.js';
import { ApiError } from '../errors.js';

/** Statuses of a paid order the simulated customer may dispute. */
const DISPUTABLE = new Set(['paid', 'partially_refunded']);

/**
 * The sandbox's simulated customer disputes a paid order's whole payment: its dispute's workflow starts
 * as a processor's event would start it, decided by the simulated network (workflows/dispute/messages.ts).
 */
export async function openSandboxDispute(
  deps: { db: Db; config: Pick<Config, 'environment' | 'disputes'>; disputes: Pick<ReturnType<typeof disputeWorkflows>, 'tell'> },
  owner: CartOwner,
  cartId: string,
  reason: string,
): Promise<string> {
  const notFound = new ApiError('NOT_FOUND', orderNotFoundMessage(owner.environment), [
    { path: 'cartId', message: `${cartId} is not one of your orders in this environment` },
  ]);
  if (deps.config.environment === 'production' || owner.environment === 'production') throw notFound;
  const order = await findOwnerCart(deps.db, owner, cartId);
  if (!order) throw notFound;
  if (!DISPUTABLE.has(order.status) || order.dispute) {
    throw new ApiError('ORDER_NOT_PAID', 'Only a paid order without a dispute can be disputed.', [
      { path: 'cartId', message: 'is not a paid order without a dispute' },
    ]);
  }
  const opening = sandboxDisputeOpening(deps.config, order, reason);
  await deps.disputes.tell(opening);
  return opening.disputeId;
}

/** The sandbox's dispute of a paid order, as the processor would state it: the whole payment, due SANDBOX_DISPUTE_RESPONSE_SECONDS from now. */
export function sandboxDisputeOpening(
  config: Pick<Config, 'disputes'>,
  order: Pick<OrderRow, 'cartId' | 'platformUuid' | 'amount' | 'capturedAmount'>,
  reason: string,
  disputeId = `dp_sandbox_${randomToken(12)}`,
): DisputeOpening {
  return {
    disputeId,
    cartId: order.cartId,
    platformUuid: order.platformUuid,
    decidedBy: 'sandbox',
    facts: {
      status: 'needs_response',
      amount: order.capturedAmount ?? order.amount,
      reason,
      evidenceDueBy: new Date(Date.now() + config.disputes.sandboxResponseMs).toISOString(),
    },
  };
}
