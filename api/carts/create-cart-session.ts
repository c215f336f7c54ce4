import { WorkflowNotFoundError } from '@temporalio/common';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { newCartId } from '../../core/checkout/cart-id.js';
import type { Logger } from '../../core/logger.js';
import { cartTotal } from '../../core/money.js';
import type { CreateCartRequest, CreateCartResponse } from '../../core/checkout/cart-schema.js';
import { withDeadline, type Temporal } from '../../core/temporal.js';
import type { CartSessionInput } from '../../workflows/cart-session/messages.js';
import { cartSessionHandle, startCartSession } from '../../workflows/cart-session/client.js';
import { ApiError } from '../errors.js';
import { claimKey, requestFingerprint } from './idempotency.js';
import { storeIdempotentResponse } from '../../core/idempotency-keys.js';
import { findCart, insertCart } from '../../core/checkout/cart-ledger.js';
import { findActiveMerchant } from '../../core/merchants/merchant-store.js';
import { apiKeyMatches } from '../../core/merchants/merchants.js';
import { MERCHANT_CHALLENGE } from '../merchant/auth.js';
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

// Bounds the whole start call, connection included: a Temporal that is down must fail the request in
// seconds, not hold it (and the ledger transaction) open.
const TEMPORAL_START_DEADLINE_MS = 3_000;
const TERMINATE_DEADLINE_MS = 2_000;
/** How long a failed creation's cleanup keeps asking PostgreSQL and Temporal before it logs an error. */
const ORPHAN_CHECK_MS = 5 * 60_000;
const ORPHAN_CHECK_INTERVAL_MS = 1_000;
/** A start cancelled by its deadline can still land: terminate looks for its session this many times. */
const ORPHAN_NOT_FOUND_RETRIES = 10;

/**
 * Creates the ledger row and starts the workflow as one unit: the row (and the idempotency key) are
 * written in a transaction that commits only after Temporal has accepted the workflow. If anything
 * fails once the start was sent (the commit itself included), the workflow is terminated, best
 * effort, so no session lives without its row.
 */
export async function createCartSession(
  deps: CartSessionDeps,
  request: CreateCartRequest,
  idempotencyKey?: string,
  /** The token of the request's `Authorization: Bearer` header, if any. */
  presentedApiKey?: string,
): Promise<CreateCartOutcome> {
  const { config, db, temporal } = deps;
  const { store, cart } = request.cartObject;

  const merchant = await findActiveMerchant(db, store.platformUuid, config.environment);
  if (!merchant) {
    throw new ApiError(
      'UNKNOWN_PLATFORM',
      `No active ${config.environment} merchant has this platformUuid. Check the value you were given for this environment.`,
      [{ path: 'cartObject.store.platformUuid', message: 'does not name an active merchant' }],
    );
  }
  // Before anything is written (an idempotent replay included): a merchant that requires its key gets no cart without it.
  if (merchant.requireApiKeyForCarts && !apiKeyMatches(presentedApiKey, merchant.apiKeyHash)) {
    throw new ApiError(
      'UNAUTHORIZED',
      'This merchant requires its API key on create-cart: send Authorization: Bearer <its API key>.',
      [{ path: 'Authorization', message: 'this merchant requires its API key on create-cart' }],
      MERCHANT_CHALLENGE,
    );
  }
  // Before anything is written: in production every URL the customer sees or is sent to must be the merchant's.
  assertCartUrlsAllowed(request, config.environment, merchant.domains);

  const cartId = newCartId();
  const createdAt = new Date();
  const expiresOn = new Date(createdAt.getTime() + config.sessionLifetimeMs).toISOString();
  const amount = cartTotal(cart.items);
  const input: CartSessionInput = {
    cartId,
    platformUuid: store.platformUuid,
    storeName: store.name,
    amount,
    currency: cart.currency,
    expiresOn,
    lifetimeMs: config.sessionLifetimeMs,
    paymentResolutionMs: config.paymentResolutionMs,
  };
  const response: CreateCartResponse = { code: 'SUCCESS', message: 'Cart created', data: { cartId, cartData: request.cartObject, expiresOn } };

  let started: Promise<unknown> | undefined;
  try {
    return await db.begin(async (tx): Promise<CreateCartOutcome> => {
      if (idempotencyKey) {
        const { replay } = await claimKey(tx, store.platformUuid, idempotencyKey, requestFingerprint(request));
        if (replay) return { response: replay, replayed: true };
      }
      await insertCart(tx, {
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
      });
      if (idempotencyKey) await storeIdempotentResponse(tx, store.platformUuid, idempotencyKey, cartId, response);
      started = withDeadline(temporal, TEMPORAL_START_DEADLINE_MS, () =>
        startCartSession(temporal.client, { taskQueue: config.temporal.taskQueue, input, storeName: store.name }),
      );
      await started;
      return { response, replayed: false };
    });
  } catch (err) {
    // The start may have reached Temporal even when it reported a failure (deadline hit after the
    // server accepted it), and the commit can fail after a successful start: in both cases a session
    // may exist whose ledger row was rolled back. Not awaited: when a dependency is down this would
    // only add its wait to the merchant's, and it reports its outcome in the log.
    if (started) void settleOrphan(deps, cartId, started, err);
    throw err;
  }
}

/**
 * A creation that failed once its session was being started leaves either a session whose row was
 * rolled back, to terminate, or — when the connection dropped while COMMIT was under way — a row
 * that was committed after all, whose session must live: the merchant's retry with the same
 * Idempotency-Key is answered with this cart (test/reliability/postgres-restart.test.ts found both).
 * So this waits for the start to settle (a transaction can fail while its start is in flight), then
 * asks the ledger, as long as PostgreSQL takes to come back, and terminates only a session without a row.
 */
async function settleOrphan(deps: CartSessionDeps, cartId: string, started: Promise<unknown>, cause: unknown): Promise<void> {
  await started.catch(() => undefined);
  const committed = await untilAnswered(() => findCart(deps.db, cartId).then((row) => row !== undefined));
  if (committed === undefined) {
    deps.logger.error({ cartId, cause }, 'could not tell whether a failed cart creation committed its ledger row; its session, if any, is left as it is');
    return;
  }
  if (committed) {
    deps.logger.warn({ cartId, err: cause }, 'a cart creation reported a failure but committed its ledger row: its session stays');
    return;
  }
  // A start cancelled by its deadline may still land: a session not found yet is looked for again.
  const terminated = await untilAnswered(async () => {
    try {
      await withDeadline(deps.temporal, TERMINATE_DEADLINE_MS, () =>
        cartSessionHandle(deps.temporal.client, cartId).terminate('cart creation failed: the ledger row was not committed'),
      );
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }, ORPHAN_NOT_FOUND_RETRIES);
  if (terminated) deps.logger.warn({ cartId, err: cause }, 'terminated the session of a cart whose creation failed');
  else if (terminated === undefined)
    deps.logger.error({ cartId, cause }, 'could not terminate the session of a cart whose creation failed; it has no ledger row');
}

/** Tries `probe` until it answers true (or, after `falseAnswers` false answers, false); undefined if it keeps failing for ORPHAN_CHECK_MS. */
async function untilAnswered(probe: () => Promise<boolean>, falseAnswers = 1): Promise<boolean | undefined> {
  const deadline = Date.now() + ORPHAN_CHECK_MS;
  let falses = 0;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return true;
      if (++falses >= falseAnswers) return false;
    } catch {
      // The dependency is still down: ask again.
    }
    await new Promise((resolve) => setTimeout(resolve, ORPHAN_CHECK_INTERVAL_MS));
  }
  return undefined;
}
