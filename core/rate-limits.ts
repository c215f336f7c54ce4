import type { Db } from './db/client.js';

/**
 * The one owner of the `rate_limit_windows` table: fixed-window counters kept in PostgreSQL, so every
 * process shares the same counts.
 */

export interface Limit {
  /** What is counted, e.g. `platform:<uuid>` or `client:<address>`. */
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

/** Counts one hit against `limit` in the current window. */
export async function countHit(db: Db, limit: Limit): Promise<Count> {
  const w = limit.windowSeconds;
  const [row] = await db<{ hits: number; retryAfter: number }[]>`
    with w as (select to_timestamp(floor(extract(epoch from now()) / ${w}) * ${w}) as start)
    insert into rate_limit_windows (bucket, window_start, window_end, hits)
    select ${limit.bucket}, w.start, w.start + make_interval(secs => ${w}), 1 from w
    on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + 1
    returning hits, greatest(1, ceil(extract(epoch from window_end - now())))::int as "retryAfter"`;
  return { allowed: row!.hits <= limit.max, retryAfterSeconds: row!.retryAfter, windowOpened: row!.hits === 1 };
}

/** Windows of other lengths may share the table: each row is pruned by its own end, never another's length. */
export async function pruneEndedWindows(db: Db): Promise<void> {
  await db`delete from rate_limit_windows where window_end < now()`;
}
