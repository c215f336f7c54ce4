import type { Db, Sql } from './db/client.js';

/**
 * The one owner of the `rate_limit_windows` table: fixed-window counters kept in PostgreSQL, so every
 * process shares the same counts.
 */

export interface Limit {
  /** What is counted, e.g. `platform:<uuid>`, `client:<address>` or `otp-destination:<keyed hash>`. */
  bucket: string;
  max: number;
  windowSeconds: number;
}

export interface Count {
  allowed: boolean;
  /** Seconds until the window ends. */
  retryAfterSeconds: number;
  /** True for the first hit of a window: the moment to prune past windows. */
  windowOpened: boolean;
}

/** What countHitsAllOrNone answers: every hit counted (and a way to take them back), or none. */
export type Hits =
  { allowed: true; windowOpened: boolean; refund(): Promise<void> } | { allowed: false; refusedBy: Limit; retryAfterSeconds: number; windowOpened: boolean };

interface Hit {
  hits: number;
  retryAfter: number;
  windowStart: Date;
}

/** The limits as count_rate_limit_hits_in_order (migration 023) takes them: one JSON parameter, in counting order. */
const limitsParameter = (sql: Sql, limits: Limit[]) => sql.json(limits.map(({ bucket, max, windowSeconds }) => ({ bucket, max, windowSeconds })));

async function hit(sql: Sql, limit: Limit): Promise<Hit> {
  const [row] = await sql<Hit[]>`
    select counted as hits, retry_after_seconds as "retryAfter", window_opened_at as "windowStart"
    from count_rate_limit_hits_in_order(${limitsParameter(sql, [limit])})`;
  return row!;
}

/** Whether `limit` is already used up in the current window, counting nothing: for checks that only count failures. */
export async function isExhausted(db: Db, limit: Limit): Promise<{ exhausted: boolean; retryAfterSeconds: number }> {
  const w = limit.windowSeconds;
  const [row] = await db<{ hits: number; retryAfter: number }[]>`
    select hits, greatest(1, ceil(extract(epoch from window_end - now())))::int as "retryAfter" from rate_limit_windows
    where bucket = ${limit.bucket} and window_start = to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w})`;
  return { exhausted: row !== undefined && row.hits >= limit.max, retryAfterSeconds: row?.retryAfter ?? 0 };
}

/** Counts one hit against `limit` in the current window. */
export async function countHit(db: Db, limit: Limit): Promise<Count> {
  const row = await hit(db, limit);
  return { allowed: row.hits <= limit.max, retryAfterSeconds: row.retryAfter, windowOpened: row.hits === 1 };
}

/** What countHitsInOrder answers: the first limit over its max, if any, and whether a window opened. */
export interface OrderedCount {
  refused?: { limit: Limit; retryAfterSeconds: number };
  windowOpened: boolean;
}

/**
 * Counts one hit against each of `limits` in turn, in one round trip, and stops at the first over its
 * max: that one is counted and refuses, the ones after it are not counted. The same counts as one
 * countHit per limit that stops at the first refusal, so an earlier, narrower limit still shields the
 * later, wider ones (a stranger's refused requests never reach a merchant-wide counter).
 */
export async function countHitsInOrder(db: Db, limits: Limit[]): Promise<OrderedCount> {
  const rows = await db<{ counted: number; retryAfterSeconds: number }[]>`
    select counted, retry_after_seconds as "retryAfterSeconds" from count_rate_limit_hits_in_order(${limitsParameter(db, limits)})`;
  const windowOpened = rows.some((row) => row.counted === 1);
  const last = rows.at(-1);
  const limit = limits[rows.length - 1];
  if (last && limit && last.counted > limit.max) return { refused: { limit, retryAfterSeconds: last.retryAfterSeconds }, windowOpened };
  return { windowOpened };
}

class Refused extends Error {
  constructor(
    readonly limit: Limit,
    readonly retryAfterSeconds: number,
    readonly windowOpened: boolean,
  ) {
    super(`rate limit ${limit.bucket} reached`);
  }
}

/**
 * Counts one hit against each of `limits` in one transaction, all or none: when one is over its max
 * the transaction rolls back, so a refused attempt uses up no limit at all (not even the ones it was
 * still under). Buckets are taken in one fixed order, so two callers never deadlock. `refund` takes
 * the hits back, in the windows they were counted in, for an attempt that turned out not to happen.
 */
export async function countHitsAllOrNone(db: Db, limits: Limit[]): Promise<Hits> {
  const ordered = [...limits].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
  try {
    const counted = await db.begin(async (tx) => {
      const windows: { bucket: string; windowStart: Date; opened: boolean }[] = [];
      for (const limit of ordered) {
        const row = await hit(tx, limit);
        if (row.hits > limit.max)
          throw new Refused(
            limit,
            row.retryAfter,
            windows.some((w) => w.opened),
          );
        windows.push({ bucket: limit.bucket, windowStart: row.windowStart, opened: row.hits === 1 });
      }
      return windows;
    });
    return {
      allowed: true,
      windowOpened: counted.some((w) => w.opened),
      async refund() {
        for (const w of counted) {
          await db`update rate_limit_windows set hits = greatest(0, hits - 1) where bucket = ${w.bucket} and window_start = ${w.windowStart}`;
        }
      },
    };
  } catch (err) {
    if (err instanceof Refused) return { allowed: false, refusedBy: err.limit, retryAfterSeconds: err.retryAfterSeconds, windowOpened: err.windowOpened };
    throw err;
  }
}

/** Windows of other lengths may share the table: each row is pruned by its own end, never another's length. */
export async function pruneEndedWindows(db: Db): Promise<void> {
  await db`delete from rate_limit_windows where window_end < now()`;
}
