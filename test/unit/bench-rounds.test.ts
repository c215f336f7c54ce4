import { describe, expect, it } from 'vitest';
import { costRatio, inTurn, measureInRounds, medianRound, rateRatio } from '../../scripts/bench/rounds.js';

describe('the bench’s rounds', () => {
  it('runs the sides in the given order in odd rounds and reversed in even ones, leaving the list as it was', () => {
    const sides = ['floor', 'before', 'now'] as const;
    expect([1, 2, 3, 4].map((pass) => inTurn(sides, pass).join(' '))).toEqual(['floor before now', 'now before floor', 'floor before now', 'now before floor']);
    expect(sides).toEqual(['floor', 'before', 'now']);
  });

  it('measures every side once a round in inTurn’s order, and shows each round as soon as it is measured', async () => {
    const calls: string[] = [];
    const seen: string[] = [];
    const rounds = await measureInRounds(
      ['floor', 'now'] as const,
      3,
      (side, pass) => {
        calls.push(`${side}-${pass}`);
        return Promise.resolve(pass * 10 + (side === 'floor' ? 1 : 2));
      },
      (round, pass) => seen.push(`${pass}:${round.first}:${calls.length}`),
    );
    expect(calls).toEqual(['floor-1', 'now-1', 'now-2', 'floor-2', 'floor-3', 'now-3']);
    // Round 1 is shown after its two measurements, before round 2's first.
    expect(seen).toEqual(['1:floor:2', '2:now:4', '3:floor:6']);
    expect(rounds).toEqual([
      { first: 'floor', floor: 11, now: 12 },
      { first: 'now', floor: 21, now: 22 },
      { first: 'floor', floor: 31, now: 32 },
    ]);
  });

  it('reports the round whose own ratio is the median', () => {
    const rounds = [{ ratio: 1.8 }, { ratio: 1.2 }, { ratio: 1.4 }];
    expect(medianRound(rounds, (r) => r.ratio, 'lower')).toBe(rounds[2]);
    expect(medianRound(rounds, (r) => r.ratio, 'higher')).toBe(rounds[2]);
  });

  it('of an even count, takes the middle round that flatters us less', () => {
    const rounds = [{ ratio: 1.3 }, { ratio: 1.6 }, { ratio: 1.1 }, { ratio: 1.4 }];
    // A cost: lower is better, so the higher of 1.3 and 1.4.
    expect(medianRound(rounds, (r) => r.ratio, 'lower').ratio).toBe(1.4);
    // A rate: higher is better, so the lower of the two.
    expect(medianRound(rounds, (r) => r.ratio, 'higher').ratio).toBe(1.3);
  });

  it('refuses to read no rounds', () => {
    expect(() => medianRound([], () => 1, 'lower')).toThrow(/no rounds/);
  });

  it('reads a cost ratio inside each round, not from each side’s lowest round', () => {
    // Each side's lowest (40 over 30) would say 1.33; no round measured that.
    const rounds = [
      { ours: 60, floor: 30 },
      { ours: 40, floor: 36 },
      { ours: 54, floor: 40 },
    ];
    expect(
      costRatio(
        rounds,
        (r) => r.ours,
        (r) => r.floor,
      ),
    ).toEqual({ ratio: 1.35, of: 54, against: 40, round: 3 });
  });

  it('reads a rate ratio the same way, taking the lower middle of an even count', () => {
    const rounds = [
      { ours: 300, raw: 500 },
      { ours: 320, raw: 400 },
      { ours: 330, raw: 550 },
      { ours: 280, raw: 400 },
    ];
    // In-round ratios 0.6, 0.8, 0.6, 0.7: the middle two are 0.6 and 0.7, and a rate takes the lower.
    expect(
      rateRatio(
        rounds,
        (r) => r.ours,
        (r) => r.raw,
      ),
    ).toMatchObject({ ratio: 0.6 });
  });
});
