import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { PRODUCTION_SETTINGS } from '../support/production-settings.js';
import { MAX_RETRY_AFTER_MS, nextAttemptDelayMs, parseRetryAfter } from '../../core/webhooks/retry-schedule.js';

const minutes = 60_000;
const hours = 60 * minutes;
const production = loadConfig({ ...PRODUCTION_SETTINGS, DATABASE_URL: 'postgres://x', DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64') });

describe('webhook retry schedule', () => {
  it('is, by default, the Standard Webhooks table: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (≈ 75 h)', () => {
    expect(production.webhooks.retryScheduleMs).toEqual([
      0,
      5_000,
      5 * minutes,
      30 * minutes,
      2 * hours,
      5 * hours,
      10 * hours,
      14 * hours,
      20 * hours,
      24 * hours,
    ]);
    const total = production.webhooks.retryScheduleMs.reduce((a, b) => a + b, 0);
    expect(total / hours).toBeCloseTo(75.6, 1);
    expect(production.webhooks.timeoutMs).toBe(15_000);
    expect(production.webhooks.secretOverlapMs).toBe(24 * hours);
    expect(production.webhooks.disableAfterMs).toBe(5 * 24 * hours);
  });

  it('waits schedule[n] ±20 % after attempt n fails, and stops after the last', () => {
    const schedule = production.webhooks.retryScheduleMs;
    expect(nextAttemptDelayMs(schedule, 1, { random: () => 0.5 })).toBe(5_000);
    expect(nextAttemptDelayMs(schedule, 1, { random: () => 0 })).toBe(4_000);
    expect(nextAttemptDelayMs(schedule, 1, { random: () => 1 })).toBe(6_000);
    expect(nextAttemptDelayMs(schedule, 9, { random: () => 0.5 })).toBe(24 * hours);
    expect(nextAttemptDelayMs(schedule, 10)).toBeUndefined();
    for (let i = 0; i < 200; i++) {
      const d = nextAttemptDelayMs(schedule, 3)!;
      expect(d).toBeGreaterThanOrEqual(0.8 * 30 * minutes);
      expect(d).toBeLessThanOrEqual(1.2 * 30 * minutes);
    }
  });

  it('honours Retry-After only to slow down, and never beyond 24 h', () => {
    const schedule = [0, 5_000, 10_000];
    expect(nextAttemptDelayMs(schedule, 1, { random: () => 0.5, retryAfterMs: 60_000 })).toBe(60_000);
    expect(nextAttemptDelayMs(schedule, 1, { random: () => 0.5, retryAfterMs: 1_000 })).toBe(5_000);
    expect(nextAttemptDelayMs(schedule, 1, { random: () => 0.5, retryAfterMs: 30 * 24 * hours })).toBe(MAX_RETRY_AFTER_MS);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
