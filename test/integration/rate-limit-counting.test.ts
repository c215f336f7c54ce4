import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { createDb } from '../../core/db/client.js';
import { countHitsInOrder, type Limit } from '../../core/rate-limits.js';

describe('countHitsInOrder', () => {
  const limitsOf = (narrowMax: number, wideMax: number): Limit[] => {
    const id = randomUUID();
    return [
      { bucket: `narrow:${id}`, max: narrowMax, windowSeconds: 3600 },
      { bucket: `wide:${id}`, max: wideMax, windowSeconds: 3600 },
    ];
  };

  it('counts each limit in turn and stops at the first refusal, which the later limits never see', async () => {
    const db = createDb(inject('databaseUrl'), { max: 1 });
    try {
      const limits = limitsOf(2, 100);
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await countHitsInOrder(db, limits));

      expect(answers.map((a) => a.refused?.limit.bucket)).toEqual([undefined, undefined, limits[0]!.bucket, limits[0]!.bucket, limits[0]!.bucket]);
      expect(answers.map((a) => a.windowOpened)).toEqual([true, false, false, false, false]);
      expect(answers[2]!.refused!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      const hits = await db<{ bucket: string; hits: number }[]>`select bucket, hits from rate_limit_windows where bucket in ${db(limits.map((l) => l.bucket))}`;
      expect(Object.fromEntries(hits.map((h) => [h.bucket, h.hits]))).toEqual({ [limits[0]!.bucket]: 5, [limits[1]!.bucket]: 2 });
    } finally {
      await db.end();
    }
  });

  it('answers the first queries of a new pool, sent at once, before it has read the server’s types', async () => {
    // An array parameter is sent as a plain string until a new pool has fetched the array types: the
    // limits go as one JSON parameter, so a fresh API process's first requests are counted too.
    const db = createDb(inject('databaseUrl'), { max: 4 });
    try {
      const limits = limitsOf(1_000, 1_000);
      const answers = await Promise.all(Array.from({ length: 8 }, () => countHitsInOrder(db, limits)));
      expect(answers.every((a) => a.refused === undefined)).toBe(true);
    } finally {
      await db.end();
    }
  });
});
