import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { ApiError } from './errors.js';

export interface Limit {
  /** What is counted, e.g. `platform:<uuid>` or `client:<address>`. */
  bucket: string;
  max: number;
  windowSeconds: number;
}

/**
 * Counts one request against `limit` in a fixed window kept in PostgreSQL, so every API process shares
 * the same counters; throws RATE_LIMITED with the seconds until the window ends.
 */
export async function enforceRateLimit(db: Db, logger: Logger, limit: Limit): Promise<void> {
  const w = limit.windowSeconds;
  const [row] = await db<{ hits: number; retryAfter: number }[]>`
    with w as (select to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w}) as start)
    insert into rate_limit_windows (bucket, window_start, window_end, hits)
    select ${limit.bucket}, w.start, w.start + make_interval(secs => ${w}), 1 from w
    on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + 1
    returning hits, greatest(1, ceil(extract(epoch from window_end - now())))::int as "retryAfter"`;
  if (row!.hits === 1) pruneOldRows(db, logger);
  if (row!.hits > limit.max) {
    throw new ApiError('RATE_LIMITED', `Too many requests: at most ${limit.max} per ${w} s. Retry after the delay in Retry-After.`, [], {
      'Retry-After': String(row!.retryAfter),
    });
  }
}

/**
 * The first request of a window clears past windows and expired idempotency keys. It runs beside the
 * request rather than in it: a failure here costs only a little disk until the next window.
 */
function pruneOldRows(db: Db, logger: Logger): void {
  Promise.all([
    db`delete from rate_limit_windows where window_end < now()`,
    db`delete from idempotency_keys where expires_at < now()`,
  ]).catch((err: unknown) => logger.warn({ err }, 'pruning expired rate-limit windows and idempotency keys failed'));
}
