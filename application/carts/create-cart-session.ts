import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { newCartId } from '../../core/checkout/cart-id.js';
import type { Logger } from '../../core/logger.js';
import { cartTotal } from '../../core/money.js';
import { RECOVERY_REMINDER_MINUTES, type CreateCartRequest, type CreateCartResponse } from '../../core/checkout/cart-schema.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { startOrTerminateOrphan } from '../../core/temporal/workflow-start.js';
import { cartWorkflowId, type CartSessionInput } from '../../workflows/cart-session/messages.js';
import { startCartSession } from '../../workflows/cart-session/client.js';
import { requestFingerprint } from '../../core/idempotency-keys.js';
import { claimKey } from './idempotency.js';
import { requestIdentity } from './request-identity.js';
import { releaseIdempotencyKey, storeIdempotentResponse } from '../../core/idempotency-keys.js';
import { deleteUnstartedCart, insertCart, type RetryLineage } from '../../core/checkout/cart-ledger.js';
import { offersReminder } from '../../core/checkout/cart-recovery.js';
import { idempotencyScope, type CartCaller } from './cart-caller.js';
import { assertCartUrlsAllowed } from './url-policy.js';

export interface CartSessionDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
}

export interface CreateCartOutcome {
  response: CreateCartResponse;
  /** True when an earlier request with the same Idempotency-Key made this response. */
  replayed: boolean;
}

/** What a new cart's ledger row and session are made of before anything is written. */
interface NewCartRow {
  cartId: string;
  createdAt: Date;
  /** ISO 8601. */
  expiresOn: string;
  lifetimeMs: number;
  /** The cart's total, in minor units. */
  amount: number;
}

function newCartRow(config: Config, request: CreateCartRequest): NewCartRow {
  const { cart } = request.cartObject;
  const createdAt = new Date();
  // The merchant's choice when it made one; else the service's lifetime (45 minutes but in tests).
  const lifetimeMs = cart.sessionMinutes === undefined ? config.sessionLifetimeMs : cart.sessionMinutes * 60_000;
  return { cartId: newCartId(), createdAt, expiresOn: new Date(createdAt.getTime() + lifetimeMs).toISOString(), lifetimeMs, amount: cartTotal(cart.items) };
}

/**
 * Writes the ledger row, then starts the workflow, with no transaction held across the start
 * (docs/decisions/create-cart-consistency.md): a held transaction kept a pooled connection per
 * request for the whole start, which capped create-cart at the pool size over the start latency. If
 * the start fails, the row (and the claimed idempotency key) are removed before the answer, and the
 * workflow is terminated, best effort, in case the start reached Temporal after all; the same when
 * the idempotency key's response cannot be stored after the start.
 */
export async function createCartSession(
  deps: CartSessionDeps,
  request: CreateCartRequest,
  /** Identified, and let through, by admitCartRequest (or, for a payment link's visit, by its link). */
  caller: CartCaller,
  /**
   * `retry`: a retry of a failed session (api/merchant/retry-session.ts), whose row records which cart it retries;
   * `recoveredFrom`: a session opened by an abandoned cart's recovery link (web/checkout/recovery-route.ts).
   */
  options: {
    idempotencyKey?: string;
    paymentLinkId?: string;
    retry?: RetryLineage;
    recoveredFrom?: string;
  } = {},
): Promise<CreateCartOutcome> {
  const { idempotencyKey, paymentLinkId, retry, recoveredFrom } = options;
  const { config, db, temporal } = deps;
  const { store, cart } = request.cartObject;

  const { merchant } = caller;
  // Before anything is written: in production every URL the customer sees or is sent to must be the merchant's.
  assertCartUrlsAllowed(request, config.environment, merchant.domains, merchant.verifiedDomains);
  const scope = idempotencyScope(caller);

  const { cartId, createdAt, expiresOn, lifetimeMs, amount } = newCartRow(config, request);
  const input: CartSessionInput = {
    cartId,
    platformUuid: store.platformUuid,
    storeName: store.name,
    amount,
    currency: cart.currency,
    expiresOn,
    lifetimeMs,
    paymentResolutionMs: config.paymentResolutionMs,
    ...(cart.captureMethod === 'manual' ? { captureMethod: 'manual' as const, authorizationHoldMs: config.authorizationHoldMs } : {}),
    threeDSecureChallengeMs: config.threeDSecureChallengeMs,
    // A recovered session, and a retry made since one, gets no reminder of its own: the order's recovery is spent.
    ...(offersReminder({ cart, afterRecovery: recoveredFrom !== undefined || retry?.afterRecovery === true })
      ? { recoveryReminderMs: config.recoveryReminderDelayMs ?? (cart.recovery?.reminderMinutes ?? RECOVERY_REMINDER_MINUTES.default) * 60_000 }
      : {}),
  };
  const response: CreateCartResponse = { code: 'SUCCESS', message: 'Cart created', data: { cartId, cartData: request.cartObject, expiresOn } };

  if (idempotencyKey) {
    const { replay } = await claimKey(db, scope, idempotencyKey, requestFingerprint(requestIdentity(request, config.sessionLifetimeMs)));
    if (replay) return { response: replay, replayed: true };
  }
  const release = async () => {
    if (idempotencyKey) await releaseIdempotencyKey(db, scope, idempotencyKey);
  };
  try {
    await insertCart(db, {
      cartId,
      platformUuid: store.platformUuid,
      environment: config.environment,
      merchantName: merchant.name,
      currency: cart.currency,
      amount,
      store,
      cart,
      expiresOn,
      createdAt,
      createdWith: caller.createdWith,
      paymentLinkId,
      ...(retry ? { retry } : {}),
      ...(recoveredFrom ? { recoveredFrom } : {}),
    });
  } catch (err) {
    await release().catch((releaseErr: unknown) => deps.logger.error({ err: releaseErr }, 'could not release the idempotency key of a cart not created'));
    throw err;
  }

  const orphan = { workflowId: cartWorkflowId(cartId), reason: 'cart creation failed: the start was not confirmed and the ledger row was removed' };
  await startOrTerminateOrphan(deps, orphan, async (start) => {
    try {
      // With TEMPORAL_EAGER_START, through the worker of this process: its first task comes back in the answer.
      const eager = temporal.eagerStarts?.client;
      await start(() =>
        startCartSession(eager ?? temporal.client, {
          taskQueue: config.temporal.taskQueue,
          requestEagerStart: eager !== undefined,
          input,
          storeName: store.name,
          facts: {
            merchantName: merchant.name,
            environment: config.environment,
            itemCount: cart.items.reduce((n, item) => n + item.quantity, 0),
            captureMethod: cart.captureMethod ?? 'automatic',
          },
        }),
      ).catch((err: unknown) => {
        // A start whose answer was lost is retried by the client's gRPC retries and then finds its own
        // workflow: the cartId is new, so nobody else started it.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      });
    } catch (err) {
      // The start may still reach Temporal after it reported a failure (its deadline hit after the
      // server accepted it). The row and the key go first, so a retry starts afresh; the session, if
      // any, is then terminated in the background, since a Temporal that is down would only add its
      // own wait to the merchant's. Both report their outcome in the log.
      await discardCart(deps, cartId, release);
      throw err;
    }
  });
  if (idempotencyKey) {
    // The session is live and its row written: the cart exists whatever happens to this write, so a
    // failure here is logged, not turned into an error that would leave the merchant without its cart
    // (a retry with the key would otherwise be answered with a session terminated behind it).
    await storeIdempotentResponse(db, scope, idempotencyKey, cartId, response).catch((err: unknown) =>
      deps.logger.error({ cartId, err }, 'could not store the Idempotency-Key response of a created cart; a retry with the key waits, then creates anew'),
    );
  }
  return { response, replayed: false };
}

/** Undoes the ledger row and the key claim of a cart whose session did not start, so a retry starts afresh. */
async function discardCart(deps: CartSessionDeps, cartId: string, release: () => Promise<void>): Promise<void> {
  try {
    await deleteUnstartedCart(deps.db, cartId);
    await release();
  } catch (err) {
    deps.logger.error({ cartId, err }, 'could not remove the ledger row of a cart whose session did not start');
  }
}
