import { createHash } from 'node:crypto';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import { lockOwnerCart } from '../../core/checkout/cart-ledger.js';
import type { Config, Environment } from '../../core/config.js';
import { randomToken } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import { refundRequestSchema, type Refund } from '../../core/orders/order-schema.js';
import {
  findRefund,
  findRefundByIdempotencyKey,
  insertRefund,
  publicRefund,
  reservedRefundAmount,
  type StoredRefund,
} from '../../core/orders/refund-ledger.js';
import { withDeadline, type Temporal } from '../../core/temporal.js';
import { findCartEvent } from '../../core/webhooks/event-store.js';
import { searchAttributes } from '../cart-session/messages.js';
import { refundWorkflowId, type RefundInput } from './messages.js';
import { refundPayment } from './workflow.js';

export interface RefundDeps {
  db: Db;
  temporal: Temporal;
  config: Config;
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

export type RefundRefusal = 'order_not_found' | 'order_not_paid' | 'amount_exceeds_refundable' | 'invalid_amount' | 'invalid_reason' | 'idempotency_conflict';

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
  ) {
    super(message);
  }
}

/** Statuses whose captured amount may (still) be refunded. */
const REFUNDABLE_STATUSES = new Set(['paid', 'partially_refunded', 'refunded']);

/** Bounds the start like create-cart's: a Temporal that is down fails the request in seconds, not holding the cart's lock. */
const TEMPORAL_START_DEADLINE_MS = 3_000;
const TERMINATE_DEADLINE_MS = 2_000;
/** How long refundOrder waits for the processor's answer before answering with a pending refund. */
const OUTCOME_WAIT_MS = 3_000;
const OUTCOME_POLL_MS = 100;
const UNIQUE_VIOLATION = '23505';

/** SHA-256 of what makes two refund requests the same: the order, the amount and the reason. */
function fingerprintOf(input: { cartId: string; amount: number; reason: string | null }): string {
  return createHash('sha256')
    .update(JSON.stringify([input.cartId, input.amount, input.reason]))
    .digest('hex');
}

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
  const fingerprint = fingerprintOf({ cartId: input.cartId, amount: input.amount, reason });
  const owner = { platformUuid: input.platformUuid, environment: input.environment };
  const refundId = `re_${randomToken(18)}`;

  let startSent = false;
  let outcome: { refund: StoredRefund; replayed: boolean };
  try {
    outcome = await deps.db.begin(async (tx) => {
      const cart = await lockOwnerCart(tx, owner, input.cartId);
      if (!cart) {
        throw new RefundRefused(
          'order_not_found',
          `No ${input.environment} order of yours has this cartId. Check the cartId and the API key's environment.`,
          'cartId',
        );
      }
      if (input.idempotencyKey !== undefined) {
        const existing = await findRefundByIdempotencyKey(tx, input.platformUuid, input.idempotencyKey);
        if (existing) return { refund: replayOrConflict(existing, fingerprint), replayed: true };
      }
      if (!REFUNDABLE_STATUSES.has(cart.status)) {
        throw new RefundRefused(
          'order_not_paid',
          `This order is ${cart.status}, not paid: only a paid order can be refunded. Wait for its order_created webhook before refunding.`,
          'cartId',
        );
      }
      // The session records `paid`, then order_created: until both are in, a refund's event could overtake the order's creation.
      if (cart.status === 'paid' && !(await findCartEvent(tx, input.cartId, 'order_created', 'paid'))) {
        throw new RefundRefused('order_not_paid', 'This order’s payment is still being recorded. Retry in a few seconds.', 'cartId');
      }
      const refundable = cart.amount - (await reservedRefundAmount(tx, input.cartId));
      if (input.amount > refundable) {
        throw new RefundRefused(
          'amount_exceeds_refundable',
          refundable === 0
            ? `Nothing remains refundable on this order: its ${cart.amount} (minor units of ${cart.currency}) are refunded or being refunded.`
            : `At most ${refundable} (minor units of ${cart.currency}) remains refundable on this order of ${cart.amount}; ask for ${refundable} or less.`,
          'amount',
          refundable,
        );
      }
      const refund = await insertRefund(tx, {
        id: refundId,
        cartId: input.cartId,
        platformUuid: input.platformUuid,
        amount: input.amount,
        reason,
        idempotencyKey: input.idempotencyKey ?? null,
        requestFingerprint: fingerprint,
      });
      startSent = true;
      await startRefundWorkflow(deps, { refundId, cartId: input.cartId, platformUuid: input.platformUuid, amount: input.amount });
      return { refund, replayed: false };
    });
  } catch (err) {
    // The same key used at the same moment for another order: that request's refund holds the key now.
    if (input.idempotencyKey !== undefined && (err as { code?: unknown }).code === UNIQUE_VIOLATION) {
      const existing = await findRefundByIdempotencyKey(deps.db, input.platformUuid, input.idempotencyKey);
      if (existing) return { refund: publicRefund(replayOrConflict(existing, fingerprint)), replayed: true };
    }
    // As in create-cart: the workflow may exist while its reservation rolled back. It would wait for
    // the reservation and end without asking the processor; terminating it says so sooner.
    if (startSent) void terminateOrphan(deps, refundId);
    throw err;
  }
  if (outcome.replayed) return { refund: publicRefund(outcome.refund), replayed: true };
  return { refund: publicRefund(await awaitOutcome(deps.db, outcome.refund)), replayed: false };
}

/** The contract's entry point (merchant API, dashboard): the refund, settled if the processor answered within a few seconds. */
export async function refundOrder(deps: RefundDeps, input: RefundOrderInput): Promise<Refund> {
  return (await requestRefund(deps, input)).refund;
}

function startRefundWorkflow(deps: RefundDeps, input: RefundInput) {
  return withDeadline(deps.temporal, TEMPORAL_START_DEADLINE_MS, () =>
    deps.temporal.client.workflow.start(refundPayment, {
      workflowId: refundWorkflowId(input.refundId),
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [{ key: searchAttributes.merchantId, value: input.platformUuid }],
    }),
  );
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

/** Best effort, and harmless to miss: the workflow ends by itself once it finds no reservation. */
async function terminateOrphan(deps: RefundDeps, refundId: string): Promise<void> {
  await withDeadline(deps.temporal, TERMINATE_DEADLINE_MS, () =>
    deps.temporal.client.workflow.getHandle(refundWorkflowId(refundId)).terminate('refund not reserved: its transaction did not commit'),
  ).catch(() => undefined);
}
