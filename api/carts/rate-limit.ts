import type { Db } from '../../core/db/client.js';
import { pruneExpiredIdempotencyKeys } from '../../core/idempotency-keys.js';
import type { Logger } from '../../core/logger.js';
import { countHit, pruneEndedWindows, type Limit } from '../../core/rate-limits.js';
import { ApiError } from '../errors.js';

/** Counts one request against `limit`; throws RATE_LIMITED with the seconds until the window ends. */
export async function enforceRateLimit(db: Db, logger: Logger, limit: Limit): Promise<void> {
  const count = await countHit(db, limit);
  if (count.windowOpened) pruneOldRows(db, logger);
  if (!count.allowed) {
    throw new ApiError('RATE_LIMITED', `Too many requests: at most ${limit.max} per ${limit.windowSeconds} s. Retry after the delay in Retry-After.`, [], {
      'Retry-After': String(count.retryAfterSeconds),
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
