import type { CreateCartResponse } from '../../core/checkout/cart-schema.js';
import type { Sql } from '../../core/db/client.js';
import { claimIdempotencyKey, type KeyScope } from '../../core/idempotency-keys.js';
import { serviceUnavailable } from '../errors.js';
import { ApiError } from '../errors.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{8,255}$';
/** Set (true) on an answer given again for a repeated request. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The header's value, or undefined when absent; a malformed one is refused rather than ignored. */
export function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!KEY.test(header)) {
    throw new ApiError('VALIDATION_ERROR', 'The Idempotency-Key header is malformed.', [
      { path: IDEMPOTENCY_HEADER, message: 'must be 8 to 255 visible ASCII characters, e.g. a UUID' },
    ]);
  }
  return header;
}

/** How long a repeat waits for the first request with its key to answer, and how often it looks. */
const PENDING_WAIT_MS = 10_000;
const PENDING_POLL_MS = 25;

const createCartConflict = () =>
  new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body. Use a new key for a new cart.', [
    { path: IDEMPOTENCY_HEADER, message: 'was used with a different body in the last 24 hours' },
  ]);

/**
 * Claims `key` for this request (core/idempotency-keys.ts): a fresh key is ours, a repeat with the
 * same body replays the first response, another body is a conflict. A repeat that arrives while the
 * first is still creating its cart waits for that one's answer (or its failure, then claims the key
 * itself), as it did when it blocked on the first one's transaction. Create-cart's by default; the
 * merchant's capture, void and expire (api/merchant/idempotency.ts) say their own conflict and wait.
 */
export async function claimKey<Response = CreateCartResponse>(
  sql: Sql,
  scope: KeyScope,
  key: string,
  fingerprint: string,
  options: { conflict?: () => ApiError; pendingWaitMs?: number } = {},
): Promise<{ replay?: Response }> {
  const giveUpAt = Date.now() + (options.pendingWaitMs ?? PENDING_WAIT_MS);
  for (;;) {
    const claim = await claimIdempotencyKey<Response>(sql, scope, key, fingerprint);
    if (claim.outcome === 'conflict') throw (options.conflict ?? createCartConflict)();
    if (claim.outcome === 'claimed') return {};
    if (claim.outcome === 'replay') return { replay: claim.response };
    // The first request with this key is stuck on a dependency: the same answer it will get.
    if (Date.now() > giveUpAt) throw serviceUnavailable();
    await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
  }
}
