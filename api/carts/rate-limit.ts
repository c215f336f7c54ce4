import type { Db } from '../../core/db/client.js';
import { pruneExpiredIdempotencyKeys } from '../../core/idempotency-keys.js';
import type { Logger } from '../../core/logger.js';
import { countHitsInOrder, pruneEndedWindows, type Limit, type OrderedCount } from '../../core/rate-limits.js';
import { ApiError } from '../../application/errors.js';

/**
 * Counts one request against each of `limits` in turn, in one round trip (countHitsInOrder); throws
 * RATE_LIMITED for the first one over its max, with the seconds until its window ends. The ones after
 * a refusal are not counted.
 */
export async function enforceRateLimits(db: Db, logger: Logger, limits: Limit[]): Promise<void> {
  answerCount(db, logger, await countHitsInOrder(db, limits));
}

/** What a count means for the request: RATE_LIMITED when a limit refused it; past windows pruned when one opened. */
export function answerCount(db: Db, logger: Logger, count: OrderedCount): void {
  if (count.windowOpened) pruneOldRows(db, logger);
  if (count.refused) {
    const { limit, retryAfterSeconds } = count.refused;
    throw new ApiError('RATE_LIMITED', `Too many requests: at most ${limit.max} per ${limit.windowSeconds} s. Retry after the delay in Retry-After.`, [], {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/**
 * The first request of a window clears past windows and expired idempotency keys. It runs beside the
 * request rather than in it: a failure here costs only a little disk until the next window.
 */
function pruneOldRows(db: Db, logger: Logger): void {
  Promise.all([pruneEndedWindows(db), pruneExpiredIdempotencyKeys(db)]).catch((err: unknown) =>
    logger.warn({ err }, 'pruning expired rate-limit windows and idempotency keys failed'),
  );
}
