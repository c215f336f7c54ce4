import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import { findOwnerCart } from '../checkout/cart-ledger.js';
import { getOrder, orderNotFoundMessage } from './orders.js';
import type { Order } from './order-schema.js';

/**
 * The merchant's capture and void of a manual-capture order (the merchant API; the dashboard can call it the same way).
 * The ledger says whose order it is and whether it is authorized; the session's workflow, which owns
 * the authorization, decides (docs/decisions/manual-capture.md): a capture, a void and the hold timer
 * race there, one at a time, and only the first happens.
 */

/** What the session answers (workflows/cart-session/client.ts authorizationHold is the one the roles pass). */
export type HoldAnswer =
  { outcome: 'settled' } | { outcome: 'in_progress' } | { outcome: 'refused'; reason: 'not_authorized' | 'invalid_capture_amount'; message: string };

export interface AuthorizationHold {
  capture(cartId: string, amount: number | undefined): Promise<HoldAnswer>;
  void(cartId: string): Promise<HoldAnswer>;
}

export type AuthorizationRefusal = 'order_not_found' | 'order_not_authorized' | 'amount_exceeds_authorized';

/** Why a capture or void was refused; `message` says the fix. Nothing happened. */
export class AuthorizationRefused extends Error {
  override name = 'AuthorizationRefused';
  constructor(
    readonly code: AuthorizationRefusal,
    message: string,
    /** The request field at fault: `cartId` or `amount`. */
    readonly field: string,
    /** For amount_exceeds_authorized: the authorized amount, minor units. */
    readonly authorized?: number,
  ) {
    super(message);
  }
}

export interface AuthorizationInput {
  platformUuid: string;
  environment: Environment;
  cartId: string;
}

/** The order once the session answered; `settled` false when it was still at the processor (the order then says `authorized`). */
export interface AuthorizationOutcome {
  order: Order;
  settled: boolean;
}

async function authorizedOrder(db: Db, input: AuthorizationInput) {
  const owner = { platformUuid: input.platformUuid, environment: input.environment };
  const row = await findOwnerCart(db, owner, input.cartId);
  if (!row) {
    throw new AuthorizationRefused('order_not_found', orderNotFoundMessage(input.environment), 'cartId');
  }
  if (row.status !== 'authorized') throw notAuthorized(row.status, row.cart.captureMethod === 'manual');
  return row;
}

function notAuthorized(status: string, manual: boolean): AuthorizationRefused {
  const message = !manual
    ? 'This order was not created with captureMethod "manual": it was captured at payment. Refund it instead.'
    : `This order is ${status}, not authorized: only an authorized order can be captured or voided (it was captured, voided, its hold expired, or it is not paid yet).`;
  return new AuthorizationRefused('order_not_authorized', message, 'cartId');
}

async function outcomeOf(db: Db, input: AuthorizationInput, answer: HoldAnswer): Promise<AuthorizationOutcome> {
  if (answer.outcome === 'refused') {
    const row = await findOwnerCart(db, input, input.cartId);
    throw notAuthorized(row?.status ?? 'unknown', row?.cart.captureMethod === 'manual');
  }
  const order = await getOrder(db, input, input.cartId);
  if (!order) throw new Error(`order ${input.cartId} vanished from the ledger`);
  return { order, settled: answer.outcome === 'settled' };
}

/** Captures `amount` (minor units; absent: all) of an authorized order; the rest of the hold is released. */
export async function captureOrder(deps: { db: Db; hold: AuthorizationHold }, input: AuthorizationInput & { amount?: number }): Promise<AuthorizationOutcome> {
  const row = await authorizedOrder(deps.db, input);
  if (input.amount !== undefined && input.amount > row.amount) {
    throw new AuthorizationRefused(
      'amount_exceeds_authorized',
      `At most ${row.amount} (minor units of ${row.currency}) was authorized on this order; capture ${row.amount} or less.`,
      'amount',
      row.amount,
    );
  }
  return outcomeOf(deps.db, input, await deps.hold.capture(input.cartId, input.amount));
}

/** Voids an authorized order: the hold is released and the order cancelled (order_cancelled). */
export async function voidOrder(deps: { db: Db; hold: AuthorizationHold }, input: AuthorizationInput): Promise<AuthorizationOutcome> {
  await authorizedOrder(deps.db, input);
  return outcomeOf(deps.db, input, await deps.hold.void(input.cartId));
}
