import { lockOwnerCart } from '../checkout/order-views.js';
import { unchargeable, type ProcessorCurrencies } from '../checkout/processor-amounts.js';
import type { Environment } from '../config.js';
import { randomToken } from '../crypto.js';
import type { Db } from '../db/client.js';
import { requestFingerprint } from '../idempotency-keys.js';
import type { Temporal } from '../temporal/connection.js';
import { findCartEvent } from '../webhooks/event-store.js';
import { startOrTerminateOrphan, workflowStarted } from '../temporal/workflow-start.js';
import { orderNotFoundMessage } from './orders.js';
import { refundRequestSchema, type Refund } from './order-schema.js';
import { findRefund, findRefundByIdempotencyKey, insertRefund, publicRefund, reservedRefundAmount, type StoredRefund } from './refund-ledger.js';

/** What the refund's workflow is started with (workflows/refund/messages.ts RefundInput). */
export interface RefundStart {
  refundId: string;
  cartId: string;
  platformUuid: string;
  /** Minor units, reserved by then. */
  amount: number;
}

export interface RefundDeps {
  db: Db;
  temporal: Temporal;
  /**
   * The refund's workflow: how it is started and its id, to end it when its reservation did not
   * commit. workflows/refund/client.ts refundWorkflow(client, config) is the one the roles pass.
   */
  refundWorkflow: { start(input: RefundStart): Promise<unknown>; workflowId(refundId: string): string };
  /** The currencies the deployment's processor charges (core/checkout/processor-amounts.ts processorCurrencies): a refund it cannot make exactly is refused. */
  currencies: ProcessorCurrencies;
}

export interface RefundOrderInput {
  platformUuid: string;
  environment: Environment;
  cartId: string;
  /** Minor units. */
  amount: number;
  reason?: string;
  /** The merchant's key: the same key with the same request returns the same refund; with another request it is refused. */
  idempotencyKey?: string;
}

export type RefundRefusal =
  | 'order_not_found'
  | 'order_not_paid'
  | 'amount_exceeds_refundable'
  | 'amount_not_representable'
  | 'currency_not_supported'
  | 'invalid_amount'
  | 'invalid_reason'
  | 'idempotency_conflict';

/** Why a refund was not even reserved; `message` is written for people and says the fix. Nothing was written. */
export class RefundRefused extends Error {
  override name = 'RefundRefused';
  constructor(
    readonly code: RefundRefusal,
    message: string,
    /** The request field at fault: `amount`, `reason`, `cartId` or `Idempotency-Key`. */
    readonly field?: string,
    /** For amount_exceeds_refundable: what may still be refunded, in minor units. */
    readonly refundable?: number,
    /** What the field must be, when more than the message's summary says (an amount the processor cannot refund exactly). */
    readonly fieldMessage?: string,
  ) {
    super(message);
  }
}

/** Statuses whose captured amount may (still) be refunded. */
const REFUNDABLE_STATUSES = new Set(['paid', 'partially_refunded', 'refunded']);

/** How long refundOrder waits for the processor's answer before answering with a pending refund. */
const OUTCOME_WAIT_MS = 3_000;
const OUTCOME_POLL_MS = 100;
const UNIQUE_VIOLATION = '23505';

function refusedInput(input: RefundOrderInput): RefundRefused | undefined {
  const parsed = refundRequestSchema.safeParse({ amount: input.amount, ...(input.reason === undefined ? {} : { reason: input.reason }) });
  const issue = parsed.error?.issues[0];
  if (!issue) return undefined;
  return issue.path[0] === 'reason'
    ? new RefundRefused('invalid_reason', `The reason ${issue.message}. Shorten it or leave it out.`, 'reason')
    : new RefundRefused('invalid_amount', `The amount ${issue.message}.`, 'amount');
}

const replayOrConflict = (existing: StoredRefund, fingerprint: string): StoredRefund => {
  if (existing.requestFingerprint === fingerprint) return existing;
  throw new RefundRefused(
    'idempotency_conflict',
    'This Idempotency-Key was already used for another refund request (another order, amount or reason). Use a new key for a new refund.',
    'Idempotency-Key',
  );
};

/**
 * Reserves the amount and starts the refund's workflow, as one unit: the cart's row is locked, what
 * pending and succeeded refunds already take is summed, and the pending refund is inserted in a
 * transaction that commits only once Temporal has accepted the workflow. Two concurrent refunds of
 * one order queue on the lock, so together they never exceed the captured amount.
 * `replayed` is true when the Idempotency-Key found an earlier refund (returned as it stands now).
 */
export async function requestRefund(deps: RefundDeps, input: RefundOrderInput): Promise<{ refund: Refund; replayed: boolean }> {
  const invalid = refusedInput(input);
  if (invalid) throw invalid;
  const reason = input.reason ?? null;
  // What makes two refund requests the same: the order, the amount and the reason, as an array: the
  // fingerprint every stored refund was given, so a repeat of one still matches it.
  const fingerprint = requestFingerprint([input.cartId, input.amount, reason]);
  const owner = { platformUuid: input.platformUuid, environment: input.environment };
  const refundId = `re_${randomToken(18)}`;

  // Started under a deadline like create-cart's, so a Temporal that is down fails the request in
  // seconds, not holding the cart's lock. If the transaction then fails, the workflow would wait for a
  // reservation that never came and end without asking the processor; terminating it says so sooner.
  // A failure may hide a commit whose acknowledgement was lost: a refund whose reservation is in the
  // ledger is never terminated, it proceeds (docs/decisions/refunds.md).
  const workflowId = deps.refundWorkflow.workflowId(refundId);
  const reserved = async () => (await findRefund(deps.db, refundId)) !== undefined;
  const orphan = {
    workflowId,
    reason: 'refund not reserved: its transaction did not commit',
    stillOrphaned: async () => !(await reserved()),
  };
  let outcome: { refund: StoredRefund; replayed: boolean };
  try {
    outcome = await startOrTerminateOrphan(deps, orphan, (start) =>
      deps.db.begin(async (tx) => {
        const cart = await lockOwnerCart(tx, owner, input.cartId);
        if (!cart) {
          throw new RefundRefused('order_not_found', orderNotFoundMessage(input.environment), 'cartId');
        }
        if (input.idempotencyKey !== undefined) {
          const existing = await findRefundByIdempotencyKey(tx, input.platformUuid, input.idempotencyKey);
          if (existing) return { refund: replayOrConflict(existing, fingerprint), replayed: true };
        }
        if (!REFUNDABLE_STATUSES.has(cart.status)) {
          throw new RefundRefused(
            'order_not_paid',
            cart.status === 'authorized'
              ? 'This order is authorized, not captured: capture it first (POST /v2/merchant/orders/{cartId}/capture), or void it instead of refunding.'
              : `This order is ${cart.status}, not paid: only a paid order can be refunded. Wait for its order_created webhook before refunding.`,
            'cartId',
          );
        }
        // The session records `paid`, then order_created (order_updated after a manual capture): until both are in, a
        // refund's event could overtake the event announcing the payment.
        const paidEvent = cart.cart.captureMethod === 'manual' ? 'order_updated' : 'order_created';
        if (cart.status === 'paid' && !(await findCartEvent(tx, input.cartId, paidEvent, 'paid'))) {
          throw new RefundRefused('order_not_paid', 'This order’s payment is still being recorded. Retry in a few seconds.', 'cartId');
        }
        // Refunds apply to what was captured: a manual capture of part of the authorization leaves the rest unrefundable.
        const captured = cart.capturedAmount ?? cart.amount;
        const refundable = captured - (await reservedRefundAmount(tx, input.cartId));
        if (input.amount > refundable) {
          throw new RefundRefused(
            'amount_exceeds_refundable',
            refundable === 0
              ? `Nothing remains refundable on this order: its ${captured} (minor units of ${cart.currency}) ${captured === cart.amount ? '' : 'captured '}are refunded or being refunded.`
              : `At most ${refundable} (minor units of ${cart.currency}) remains refundable on this order of ${captured}${captured === cart.amount ? '' : ' captured'}; ask for ${refundable} or less.`,
            'amount',
            refundable,
          );
        }
        const refused = unchargeable(deps.currencies, cart.currency, input.amount);
        if (refused) throw new RefundRefused(refused.code, refused.message, 'amount', undefined, refused.field);
        const refund = await insertRefund(tx, {
          id: refundId,
          cartId: input.cartId,
          platformUuid: input.platformUuid,
          amount: input.amount,
          reason,
          idempotencyKey: input.idempotencyKey ?? null,
          requestFingerprint: fingerprint,
        });
        try {
          await start(() => deps.refundWorkflow.start({ refundId, cartId: input.cartId, platformUuid: input.platformUuid, amount: input.amount }));
        } catch (err) {
          // The start's answer may be lost although Temporal accepted it: a workflow that exists is
          // kept, and the reservation commits for it; only a workflow that truly is not there rolls it back.
          if (!(await workflowStarted(deps, workflowId))) throw err;
        }
        return { refund, replayed: false };
      }),
    );
  } catch (err) {
    // The commit's acknowledgement lost: the reservation is in, and its workflow runs it.
    const committed = err instanceof RefundRefused ? undefined : await findRefund(deps.db, refundId).catch(() => undefined);
    if (committed) return { refund: publicRefund(await awaitOutcome(deps.db, committed)), replayed: false };
    // The same key used at the same moment for another order: that request's refund holds the key now.
    if (input.idempotencyKey !== undefined && (err as { code?: unknown }).code === UNIQUE_VIOLATION) {
      const existing = await findRefundByIdempotencyKey(deps.db, input.platformUuid, input.idempotencyKey);
      if (existing) return { refund: publicRefund(replayOrConflict(existing, fingerprint)), replayed: true };
    }
    throw err;
  }
  if (outcome.replayed) return { refund: publicRefund(outcome.refund), replayed: true };
  return { refund: publicRefund(await awaitOutcome(deps.db, outcome.refund)), replayed: false };
}

/** The contract's entry point (merchant API, dashboard): the refund, settled if the processor answered within a few seconds. */
export async function refundOrder(deps: RefundDeps, input: RefundOrderInput): Promise<Refund> {
  return (await requestRefund(deps, input)).refund;
}

async function awaitOutcome(db: Db, refund: StoredRefund): Promise<StoredRefund> {
  const giveUpAt = Date.now() + OUTCOME_WAIT_MS;
  let current = refund;
  while (current.status === 'pending' && Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, OUTCOME_POLL_MS));
    current = (await findRefund(db, refund.id)) ?? current;
  }
  return current;
}
