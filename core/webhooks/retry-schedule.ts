/**
 * When the next attempt of a failed delivery happens. `schedule[n]` is the delay before attempt n+1
 * (attempt 1 is immediate), so after attempt `attempt` fails the next waits `schedule[attempt]`,
 * ±20 % so that many endpoints coming back at once are not hit in lockstep.
 */

export const JITTER = 0.2;
/** A merchant's Retry-After may postpone an attempt, but never beyond this. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** Milliseconds until the next attempt, or undefined when `attempt` was the last one. */
export function nextAttemptDelayMs(
  schedule: readonly number[],
  attempt: number,
  options: { retryAfterMs?: number; random?: () => number } = {},
): number | undefined {
  const base = schedule[attempt];
  if (base === undefined) return undefined;
  const random = options.random ?? Math.random;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  // Retry-After is honoured to slow down, never to speed up beyond the schedule.
  const asked = options.retryAfterMs === undefined ? 0 : Math.min(options.retryAfterMs, MAX_RETRY_AFTER_MS);
  return Math.max(jittered, asked);
}
