import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
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
import { releaseIdempotencyKey, storeIdempotentResponse } from '../../core/idempotency-keys.js';
import { deleteUnstartedCart, insertCart } from '../../core/checkout/cart-ledger.js';
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
// seconds, not hold it open.
const TEMPORAL_START_DEADLINE_MS = 3_000;
const TERMINATE_DEADLINE_MS = 2_000;
/** A start cancelled by its deadline may still land: its session is looked for this many times, a second apart. */
const ORPHAN_LOOKUPS = 10;
const ORPHAN_LOOKUP_INTERVAL_MS = 1_000;

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

  if (idempotencyKey) {
    const { replay } = await claimKey(db, store.platformUuid, idempotencyKey, requestFingerprint(request));
    if (replay) return { response: replay, replayed: true };
  }
  const release = async () => {
    if (idempotencyKey) await releaseIdempotencyKey(db, store.platformUuid, idempotencyKey);
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
    });
  } catch (err) {
    await release().catch((releaseErr: unknown) => deps.logger.error({ err: releaseErr }, 'could not release the idempotency key of a cart not created'));
    throw err;
  }

  try {
    await withDeadline(temporal, TEMPORAL_START_DEADLINE_MS, () =>
      startCartSession(temporal.client, {
        taskQueue: config.temporal.taskQueue,
        input,
        storeName: store.name,
        facts: { merchantName: merchant.name, environment: config.environment, itemCount: cart.items.reduce((n, item) => n + item.quantity, 0) },
      }),
    ).catch((err: unknown) => {
      // A start whose answer was lost is retried by the client's gRPC retries and then finds its own
      // workflow: the cartId is new, so nobody else started it.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    });
  } catch (err) {
    // The start may still reach Temporal after it reported a failure (its deadline hit after the
    // server accepted it). The row and the key go first, so a retry starts afresh; the session, if
    // any, is terminated in the background, since a Temporal that is down would only add its own
    // wait to the merchant's. Both report their outcome in the log.
    await discardCart(deps, cartId, release);
    void terminateOrphan(deps, cartId, err);
    throw err;
  }
  if (idempotencyKey) {
    // The session is live and its row written: the cart exists whatever happens to this write, so a
    // failure here is logged, not turned into an error that would leave the merchant without its cart
    // (a retry with the key would otherwise be answered with a session terminated behind it).
    await storeIdempotentResponse(db, store.platformUuid, idempotencyKey, cartId, response).catch((err: unknown) =>
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

/**
 * Terminates the session of a cart whose creation failed, if the start landed after all: a start
 * cancelled by its deadline can still land, so a session not found yet is looked for again
 * (test/reliability/postgres-restart.test.ts found sessions left without a row otherwise).
 */
async function terminateOrphan(deps: CartSessionDeps, cartId: string, cause: unknown): Promise<void> {
  for (let attempt = 1; attempt <= ORPHAN_LOOKUPS; attempt++) {
    try {
      await withDeadline(deps.temporal, TERMINATE_DEADLINE_MS, () =>
        cartSessionHandle(deps.temporal.client, cartId).terminate('cart creation failed: the start was not confirmed and the ledger row was removed'),
      );
      deps.logger.warn({ cartId, err: cause }, 'terminated the session of a cart whose creation failed');
      return;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) && attempt === ORPHAN_LOOKUPS) {
        deps.logger.error({ cartId, err, cause }, 'could not terminate the session of a cart whose creation failed; it has no ledger row');
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, ORPHAN_LOOKUP_INTERVAL_MS));
  }
}
