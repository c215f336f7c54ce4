import type { Environment } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { OrderContext } from '../checkout/order-model.js';
import type { Db } from '../db/client.js';
import { findOwnerCart, type OrderRow } from '../checkout/order-views.js';
import { unchargeable, type ProcessorCurrencies } from '../checkout/processor-amounts.js';
import { findKeptAnswer, keepAnswer, type KeptAnswer } from '../idempotency-keys.js';
import { openCustomerIn, sealCustomerIn } from '../checkout/customer-seal.js';
import { getOrder, orderNotFoundMessage } from './orders.js';
import type { Order } from './order-schema.js';

/**
 * The merchant's capture and void of a manual-capture order (the merchant API; the dashboard can call it the same way).
 * The ledger says whose order it is and whether it is authorized; the session's workflow, which owns
 * the authorization, decides (docs/decisions/manual-capture.md): a capture, a void and the hold timer
 * race there, one at a time, and only the first happens.
 *
 * A capture is decided once, for one amount, and is idempotent by request: the same capture again (the
 * same amount; none sent is the authorized total) answers what the first answered, a capture of another
 * amount is refused with capture_already_decided. The first settled answer is kept 24 hours
 * (core/idempotency-keys.ts, keyed by the cart); after that a repeat answers the order as it stands.
 */

/** Which way a hold was decided, as the session's refusal tells it (workflows/cart-session/messages.ts HoldRefusalDetails). */
export type HoldDecision = { kind: 'capture'; amount: number } | { kind: 'void' } | { kind: 'expire' };

/** What the session answers (workflows/cart-session/client.ts authorizationHold is the one the roles pass). */
export type HoldAnswer =
  | { outcome: 'settled' }
  | { outcome: 'in_progress' }
  | { outcome: 'refused'; reason: 'not_authorized' | 'invalid_capture_amount'; message: string; decided?: HoldDecision };

export interface AuthorizationHold {
  /** `amount` in minor units, the authorized total when the merchant sent none: one update per cart and amount. */
  capture(cartId: string, amount: number): Promise<HoldAnswer>;
  void(cartId: string): Promise<HoldAnswer>;
}

export type AuthorizationRefusal =
  'order_not_found' | 'order_not_authorized' | 'amount_exceeds_authorized' | 'capture_already_decided' | 'amount_not_representable' | 'currency_not_supported';

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
    /** For capture_already_decided: the amount the order's capture was decided for (captured), minor units. */
    readonly captured?: number,
    /** What the field must be, when more than the message's summary says (an amount the processor cannot capture exactly). */
    readonly fieldMessage?: string,
  ) {
    super(message);
  }
}

export interface AuthorizationInput {
  platformUuid: string;
  environment: Environment;
  cartId: string;
}

/**
 * The order once the session answered; `settled` false when it was still at the processor (the order
 * then says `authorized`). `replayed`: the order as an earlier request with the same capture was answered.
 */
export interface AuthorizationOutcome {
  order: Order;
  settled: boolean;
  replayed?: boolean;
}

function notAuthorized(status: string, manual: boolean): AuthorizationRefused {
  const message = !manual
    ? 'This order was not created with captureMethod "manual": it was captured at payment. Refund it instead.'
    : status === 'authorized'
      ? 'This order’s hold is being voided or captured by another request: only the first capture or void happens. Follow the order for its outcome.'
      : `This order is ${status}, not authorized: only an authorized order can be captured or voided (it was captured, voided, its hold expired, or it is not paid yet).`;
  return new AuthorizationRefused('order_not_authorized', message, 'cartId');
}

function alreadyDecided(captured: number, asked: number, currency: string): AuthorizationRefused {
  return new AuthorizationRefused(
    'capture_already_decided',
    `This order’s capture is already decided: ${captured} (minor units of ${currency}) captured, so a capture of ${asked} is refused. An order is captured once; ask for ${captured} to get that capture’s answer again, or follow the order for its outcome.`,
    'amount',
    undefined,
    captured,
  );
}

/** Where orders are read: the database, the keyring that opens their customer's contact, and the service's URL (core/checkout/order-model.ts OrderContext). */
export interface OrderStore extends OrderContext {
  db: Db;
}

async function orderOf(store: OrderStore, input: AuthorizationInput): Promise<Order> {
  const order = await getOrder(store.db, store, input, input.cartId);
  if (!order) throw new Error(`order ${input.cartId} vanished from the ledger`);
  return order;
}

/** Where an order's first settled capture answer is kept: a key of the service's own per order, its cartId. */
const captureAnswers = (input: AuthorizationInput) => ({ platformUuid: input.platformUuid, caller: 'capture' });

/** The kept answer, if it is for `amount`; else the capture was decided for another amount. */
function sameCapture(keyring: Keyring, kept: KeptAnswer<Order>, amount: number): AuthorizationOutcome {
  const captured = Number(kept.fingerprint);
  if (captured !== amount) throw alreadyDecided(captured, amount, kept.response.currency);
  return { order: openCustomerIn(keyring, kept.response), settled: true, replayed: true };
}

/** Keeps this settled answer as the capture's, unless an earlier one is kept: that one is answered, so every answer of the capture is the same. */
async function keepCapture(store: OrderStore, input: AuthorizationInput, amount: number, order: Order): Promise<AuthorizationOutcome> {
  const kept = await keepAnswer(store.db, captureAnswers(input), input.cartId, {
    fingerprint: String(amount),
    response: sealCustomerIn(store.keyring, order),
    cartId: input.cartId,
  });
  return kept.ours ? { order, settled: true } : sameCapture(store.keyring, kept, amount);
}

/**
 * A capture of `amount` once the ledger or the session said the hold is decided: the first answer
 * when a capture of this amount was decided, capture_already_decided when one of another amount was;
 * undefined while the ledger still says authorized and no answer is kept (a decision on its way).
 * Anything else (voided, expired, declined, not manual) holds no authorization.
 */
async function decidedCapture(store: OrderStore, input: AuthorizationInput, amount: number): Promise<AuthorizationOutcome | undefined> {
  const kept = await findKeptAnswer<Order>(store.db, captureAnswers(input), input.cartId);
  if (kept) return sameCapture(store.keyring, kept, amount);
  const row = await findOwnerCart(store.db, input, input.cartId);
  if (!row) throw new AuthorizationRefused('order_not_found', orderNotFoundMessage(input.environment), 'cartId');
  const manual = row.cart.captureMethod === 'manual';
  if (manual && row.capturedAmount !== null) {
    if (row.capturedAmount !== amount) throw alreadyDecided(row.capturedAmount, amount, row.currency);
    return keepCapture(store, input, amount, await orderOf(store, input));
  }
  if (row.status === 'authorized') return undefined;
  throw notAuthorized(row.status, manual);
}

/**
 * What a capture asks for, in minor units: the amount sent, or the authorized total when none was, so
 * `{}` and `{amount: <total>}` are one request. Refused as captureOrder refuses it when the order is not
 * the merchant's or the amount is more than was authorized.
 */
export async function captureAmount(deps: CaptureDeps, input: AuthorizationInput & { amount?: number }): Promise<number> {
  return amountOf(await ownedOrder(deps.db, input), input.amount, deps.currencies);
}

/** `currencies`: what the deployment's processor charges (core/checkout/processor-amounts.ts processorCurrencies); a capture it cannot make exactly is refused. */
export interface CaptureDeps extends OrderStore {
  currencies: ProcessorCurrencies;
}

async function ownedOrder(db: Db, input: AuthorizationInput): Promise<OrderRow> {
  const row = await findOwnerCart(db, input, input.cartId);
  if (!row) throw new AuthorizationRefused('order_not_found', orderNotFoundMessage(input.environment), 'cartId');
  return row;
}

function amountOf(row: OrderRow, amount: number | undefined, currencies: ProcessorCurrencies): number {
  if (amount !== undefined && amount > row.amount) {
    throw new AuthorizationRefused(
      'amount_exceeds_authorized',
      `At most ${row.amount} (minor units of ${row.currency}) was authorized on this order; capture ${row.amount} or less.`,
      'amount',
      row.amount,
    );
  }
  const capture = amount ?? row.amount;
  const refused = unchargeable(currencies, row.currency, capture);
  if (refused) throw new AuthorizationRefused(refused.code, refused.message, 'amount', undefined, undefined, refused.field);
  return capture;
}

/**
 * Captures `amount` (minor units; absent: all) of an authorized order; the rest of the hold is released.
 * Idempotent by request: the same capture again answers what the first answered; another amount, once
 * one is decided (before, at the same time or after), is refused with capture_already_decided.
 */
export async function captureOrder(
  deps: CaptureDeps & { hold: AuthorizationHold },
  input: AuthorizationInput & { amount?: number },
): Promise<AuthorizationOutcome> {
  const { db } = deps;
  const row = await ownedOrder(db, input);
  const amount = amountOf(row, input.amount, deps.currencies);
  const refused = () => findOwnerCart(db, input, input.cartId).then((now) => notAuthorized(now?.status ?? 'unknown', now?.cart.captureMethod === 'manual'));
  if (row.status !== 'authorized') {
    if (row.cart.captureMethod !== 'manual') throw notAuthorized(row.status, false);
    const decided = await decidedCapture(deps, input, amount);
    if (decided) return decided;
    throw await refused();
  }
  const answer = await deps.hold.capture(input.cartId, amount);
  if (answer.outcome === 'in_progress') return { order: await orderOf(deps, input), settled: false };
  if (answer.outcome === 'settled') return keepCapture(deps, input, amount, await orderOf(deps, input));
  // An amount the session's own bound refuses (the ledger said it was within the authorized total).
  if (answer.reason === 'invalid_capture_amount') throw new AuthorizationRefused('amount_exceeds_authorized', answer.message, 'amount', row.amount);
  // Refused: the hold was decided first, by this request's twin, another amount, a void or the timer.
  const decision = answer.decided;
  if (decision?.kind === 'capture' && decision.amount !== amount) throw alreadyDecided(decision.amount, amount, row.currency);
  if (decision && decision.kind !== 'capture') throw await refused();
  // The same amount (sent under another update id), or a session that did not say (closed, or an older worker): the ledger tells.
  const decided = await decidedCapture(deps, input, amount);
  if (decided) return decided;
  if (decision) return { order: await orderOf(deps, input), settled: false };
  throw await refused();
}

/** Voids an authorized order: the hold is released and the order cancelled (order_cancelled). */
export async function voidOrder(deps: OrderStore & { hold: AuthorizationHold }, input: AuthorizationInput): Promise<AuthorizationOutcome> {
  const row = await ownedOrder(deps.db, input);
  if (row.status !== 'authorized') throw notAuthorized(row.status, row.cart.captureMethod === 'manual');
  const answer = await deps.hold.void(input.cartId);
  if (answer.outcome === 'refused') {
    const now = await findOwnerCart(deps.db, input, input.cartId);
    throw notAuthorized(now?.status ?? 'unknown', now?.cart.captureMethod === 'manual');
  }
  return { order: await orderOf(deps, input), settled: answer.outcome === 'settled' };
}
