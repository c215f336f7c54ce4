import type { Context } from 'hono';
import type { Keyring } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import { openCustomerIn, sealCustomerIn } from '../../core/checkout/customer-seal.js';
import { releaseIdempotencyKey, requestFingerprint, storeIdempotentResponse } from '../../core/idempotency-keys.js';
import { claimKey, IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../../application/carts/idempotency.js';
import { ApiError } from '../../application/errors.js';

/** A merchant action's answer: 200 once done, 202 while the processor still works on it; `replayed` when it is an earlier request's answer. */
export interface ActionAnswer {
  body: unknown;
  status: 200 | 202;
  replayed?: boolean;
}

/** What makes two requests under one key the same request: the action, the order, and for a capture the amount (the total when none was sent). */
export interface ActionRequest {
  action: 'capture' | 'void' | 'expire' | 'retry';
  cartId: string;
  amount?: number;
}

const conflict = () =>
  new ApiError(
    'IDEMPOTENCY_CONFLICT',
    'This Idempotency-Key was already used for another request (another order, action or amount). Use a new key for a new request.',
    [{ path: IDEMPOTENCY_HEADER, message: 'was used with a different request' }],
  );

function respond(c: Context, answer: ActionAnswer): Response {
  if (answer.replayed) c.header(REPLAYED_HEADER, 'true');
  return c.json(answer.body, answer.status);
}

/**
 * Capture, void, expire and retry with an `Idempotency-Key`, by create-cart's rules and table
 * (core/idempotency-keys.ts): keys are the merchant's (the scope create-cart gives a request with the
 * API key), the same key with the same request within 24 hours answers the first 200 byte for byte
 * with `Idempotent-Replayed: true`, and with another request (another order, action or amount) is
 * IDEMPOTENCY_CONFLICT, as a refund's key is. Only a 200 is kept: an error, or a 202 while the
 * processor works, gives the key back, so a repeat asks again and gets the order's decided answer
 * (each action is decided once per order). A repeat while the first is under way waits for it up to
 * `pendingWaitMs`. Without a key the action answers as it is. A kept answer holding an order keeps its
 * customer's contact sealed (core/checkout/customer-seal.ts).
 */
export async function answerOnce(
  c: Context,
  deps: { db: Db; keyring: Keyring; pendingWaitMs: number },
  platformUuid: string,
  key: string | undefined,
  request: ActionRequest,
  act: () => Promise<ActionAnswer>,
): Promise<Response> {
  if (key === undefined) return respond(c, await act());
  const scope = { platformUuid, caller: 'api_key' };
  const { replay } = await claimKey<unknown>(deps.db, scope, key, requestFingerprint(request), { conflict, pendingWaitMs: deps.pendingWaitMs });
  if (replay !== undefined) return respond(c, { body: openCustomerIn(deps.keyring, replay), status: 200, replayed: true });
  const release = () =>
    releaseIdempotencyKey(deps.db, scope, key).catch((err: unknown) =>
      c
        .get('logger')
        ?.error({ err, cartId: request.cartId }, 'could not release the Idempotency-Key of an unfinished request; a retry with it waits, then takes it over'),
    );
  let answer: ActionAnswer;
  try {
    answer = await act();
  } catch (err) {
    await release();
    throw err;
  }
  if (answer.status !== 200) {
    await release();
  } else {
    // Done whatever happens to this write: a failure is logged, not turned into an error about an action that happened.
    await storeIdempotentResponse(deps.db, scope, key, request.cartId, sealCustomerIn(deps.keyring, answer.body)).catch((err: unknown) =>
      c
        .get('logger')
        ?.error({ err, cartId: request.cartId }, 'could not store the Idempotency-Key answer of a done request; a retry with it waits, then asks again'),
    );
  }
  return respond(c, answer);
}
