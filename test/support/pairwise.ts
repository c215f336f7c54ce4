/**
 * All-pairs (pairwise) combinations of test axes: a set of rows, each choosing one value per axis,
 * such that every value of every axis meets every value of every other axis in at least one row.
 * Most defects need at most two settings to meet; covering every pair takes a handful of rows
 * (at least the product of the two largest axes) where the full product takes all of them.
 *
 * Deterministic: the same axes always give the same rows, in the same order (its pseudo-random
 * choices come from a fixed seed), so a failing journey has the same name on every run. Greedy, in
 * the manner of AETG (Cohen et al., 1997): each new row is the best of several candidates, each
 * starting from an uncovered pair of the value most in need and completed axis by axis, in a shuffled
 * order, with the value that covers the most pairs still uncovered.
 */

/** Named axes, each a list of its values. */
export type Axes = Readonly<Record<string, readonly unknown[]>>;

/** One row: a value of each axis. */
export type Combination<A extends Axes> = { -readonly [K in keyof A]: A[K][number] };

/** Two values of two different axes that some row must hold together. */
export interface Pair {
  axes: readonly [string, string];
  values: readonly [unknown, unknown];
}

/** How many uncovered pairs seed the candidates for each new row. */
const CANDIDATES_PER_ROW = 50;

function axisList(axes: Axes): Array<{ name: string; values: readonly unknown[] }> {
  const list = Object.entries(axes).map(([name, values]) => ({ name, values }));
  for (const { name, values } of list) {
    if (values.length === 0) throw new Error(`axis "${name}" has no values`);
    if (new Set(values).size !== values.length) throw new Error(`axis "${name}" lists a value twice`);
  }
  return list;
}

/** Every pair of values of two different axes, in axis order: what a pairwise set must cover. */
export function allPairs(axes: Axes): Pair[] {
  const list = axisList(axes);
  const pairs: Pair[] = [];
  for (let a = 0; a < list.length; a++)
    for (let b = a + 1; b < list.length; b++)
      for (const va of list[a]!.values) for (const vb of list[b]!.values) pairs.push({ axes: [list[a]!.name, list[b]!.name], values: [va, vb] });
  return pairs;
}

/** The pairs of `axes` that no row holds (values compared with Object.is): empty for a pairwise set. */
export function uncoveredPairs(axes: Axes, rows: ReadonlyArray<Readonly<Record<string, unknown>>>): Pair[] {
  return allPairs(axes).filter(({ axes: [a, b], values: [va, vb] }) => !rows.some((row) => Object.is(row[a], va) && Object.is(row[b], vb)));
}

/** A pairwise set of rows for `axes`; a single axis gives one row per value, no axes one empty row. */
export function pairwise<A extends Axes>(axes: A): Array<Combination<A>> {
  const list = axisList(axes);
  const n = list.length;
  if (n === 0) return [{} as Combination<A>];
  if (n === 1) return list[0]!.values.map((value) => ({ [list[0]!.name]: value }) as Combination<A>);

  // uncovered[a][b] (a < b): the value pairs of axes a and b not yet in a row, as va * |b| + vb.
  const uncovered: Array<Array<Set<number>>> = list.map((_, a) =>
    list.map((__, b) => new Set(a < b ? Array.from({ length: list[a]!.values.length * list[b]!.values.length }, (___, i) => i) : [])),
  );
  const size = (b: number) => list[b]!.values.length;
  const isUncovered = (a: number, va: number, b: number, vb: number) =>
    a < b ? uncovered[a]![b]!.has(va * size(b) + vb) : uncovered[b]![a]!.has(vb * size(a) + va);
  // A fixed seed: the choices vary between candidates, never between runs.
  const random = mulberry32(0x5eed);
  let remaining = uncovered.reduce((sum, row) => sum + row.reduce((s, set) => s + set.size, 0), 0);

  /**
   * The seed of each candidate row: an uncovered pair holding the axis value that the most uncovered
   * pairs still need (the hardest to place), with a partner taken in turn from its uncovered pairs.
   */
  function seeds(): Array<[number, number, number, number]> {
    let best: [number, number] = [0, 0];
    let bestCount = -1;
    const partners = (a: number, va: number) => {
      const found: Array<[number, number]> = [];
      for (let b = 0; b < n; b++) if (b !== a) for (let vb = 0; vb < size(b); vb++) if (isUncovered(a, va, b, vb)) found.push([b, vb]);
      return found;
    };
    for (let a = 0; a < n; a++)
      for (let va = 0; va < size(a); va++) {
        const count = partners(a, va).length;
        if (count > bestCount) [best, bestCount] = [[a, va], count];
      }
    const [a, va] = best;
    const found = partners(a, va);
    return Array.from({ length: CANDIDATES_PER_ROW }, () => {
      const [b, vb] = found[Math.floor(random() * found.length)]!;
      return [a, va, b, vb];
    });
  }

  /** A row holding the seed pair, the other axes (in a shuffled order) each given the value that covers the most uncovered pairs with the values already chosen. */
  function complete([a, va, b, vb]: [number, number, number, number]): { row: number[]; gain: number } {
    const row: number[] = new Array<number>(n).fill(-1);
    row[a] = va;
    row[b] = vb;
    const order = shuffled(list.map((_, i) => i).filter((i) => i !== a && i !== b));
    for (const axis of order) {
      let best: number[] = [];
      let bestGain = -1;
      for (let v = 0; v < size(axis); v++) {
        let gain = 0;
        for (let other = 0; other < n; other++) if (row[other]! >= 0 && isUncovered(axis, v, other, row[other]!)) gain++;
        if (gain > bestGain) [best, bestGain] = [[v], gain];
        else if (gain === bestGain) best.push(v);
      }
      row[axis] = best[Math.floor(random() * best.length)]!;
    }
    let gain = 0;
    for (let x = 0; x < n; x++) for (let y = x + 1; y < n; y++) if (isUncovered(x, row[x]!, y, row[y]!)) gain++;
    return { row, gain };
  }

  function shuffled(items: number[]): number[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }

  const rows: number[][] = [];
  while (remaining > 0) {
    let chosen: { row: number[]; gain: number } | undefined;
    for (const seed of seeds()) {
      const candidate = complete(seed);
      if (!chosen || candidate.gain > chosen.gain) chosen = candidate;
    }
    const { row } = chosen!;
    for (let x = 0; x < n; x++)
      for (let y = x + 1; y < n; y++) {
        if (uncovered[x]![y]!.delete(row[x]! * size(y) + row[y]!)) remaining--;
      }
    rows.push(row);
  }
  return rows.map((row) => Object.fromEntries(row.map((v, i) => [list[i]!.name, list[i]!.values[v]])) as Combination<A>);
}

/** A small seeded pseudo-random generator (Mulberry32): numbers in [0, 1), the same sequence for the same seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
