import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allPairs, pairwise, uncoveredPairs, type Axes } from '../support/pairwise.js';

/** Axes named a, b, c… with the given numbers of values (v0, v1…). */
const axesOf = (sizes: number[]): Axes =>
  Object.fromEntries(sizes.map((size, i) => [String.fromCharCode(97 + i), Array.from({ length: size }, (_, v) => `v${v}`)]));

describe('pairwise (all-pairs) combinations', () => {
  it('lists every pair of values of two different axes, and no pair within one axis', () => {
    const pairs = allPairs({ x: [1, 2], y: ['a', 'b', 'c'], z: [true] });
    expect(pairs).toHaveLength(2 * 3 + 2 * 1 + 3 * 1);
    expect(pairs).toContainEqual({ axes: ['x', 'y'], values: [2, 'c'] });
    expect(pairs).toContainEqual({ axes: ['y', 'z'], values: ['a', true] });
    expect(pairs.every((p) => p.axes[0] !== p.axes[1])).toBe(true);
  });

  it('finds the pairs a set of rows misses', () => {
    const axes = { x: [1, 2], y: ['a', 'b'] };
    expect(
      uncoveredPairs(axes, [
        { x: 1, y: 'a' },
        { x: 2, y: 'b' },
      ]),
    ).toEqual([
      { axes: ['x', 'y'], values: [1, 'b'] },
      { axes: ['x', 'y'], values: [2, 'a'] },
    ]);
    expect(uncoveredPairs(axes, [])).toHaveLength(4);
  });

  it('covers every pair of any axes, each row one value of every axis', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 2, maxLength: 7 }), (sizes) => {
        const axes = axesOf(sizes);
        const rows = pairwise(axes);
        expect(uncoveredPairs(axes, rows)).toEqual([]);
        for (const row of rows) {
          expect(Object.keys(row).sort()).toEqual(Object.keys(axes).sort());
          for (const [name, value] of Object.entries(row)) expect(axes[name]).toContain(value);
        }
        // Never fewer than the two largest axes need, never more than the full product.
        const [first, second] = [...sizes].sort((p, q) => q - p);
        expect(rows.length).toBeGreaterThanOrEqual(first! * second!);
        expect(rows.length).toBeLessThanOrEqual(sizes.reduce((product, size) => product * size, 1));
      }),
      { numRuns: 40 },
    );
  });

  it('is far smaller than the full product, and optimal for the journey matrix’s shape (5 × 3 × 2 × 2 × 2 → 15)', () => {
    expect(pairwise(axesOf([5, 3, 2, 2, 2]))).toHaveLength(15);
    // 3^13 = 1 594 323 combinations; the best known covering uses 15 rows, greedy methods about 20.
    expect(pairwise(axesOf(Array<number>(13).fill(3))).length).toBeLessThanOrEqual(22);
    expect(pairwise(axesOf(Array<number>(10).fill(2))).length).toBeLessThanOrEqual(10);
  });

  it('is deterministic: the same axes give the same rows in the same order', () => {
    const axes = axesOf([4, 3, 3, 2, 5]);
    expect(pairwise(axes)).toEqual(pairwise(axes));
  });

  it('takes axes of any values, matched by identity', () => {
    const visa = { number: '4111' };
    const mastercard = { number: '5555' };
    const axes = { card: [visa, mastercard], lang: ['en', 'ar'], ok: [true, false] };
    const rows = pairwise(axes);
    expect(uncoveredPairs(axes, rows)).toEqual([]);
    expect(rows.every((row) => row.card === visa || row.card === mastercard)).toBe(true);
  });

  it('gives one row per value for one axis and one empty row for none; refuses an empty axis or a repeated value', () => {
    expect(pairwise({ lang: ['en', 'ar', 'fr'] })).toEqual([{ lang: 'en' }, { lang: 'ar' }, { lang: 'fr' }]);
    expect(pairwise({})).toEqual([{}]);
    expect(() => pairwise({ lang: ['en'], card: [] })).toThrow('axis "card" has no values');
    expect(() => pairwise({ lang: ['en', 'en'], card: [1] })).toThrow('axis "lang" lists a value twice');
  });
});
