import type { BenchContext } from './context.js';
import type { MeasuredCpu } from './cpu.js';
import { measureCreateCart } from './create-cart.js';
import { measureLimit } from './limit.js';
import { round, type LoadFigures } from './load.js';
import { measureInRounds, medianRound } from './rounds.js';

type Measurement = LoadFigures & MeasuredCpu;

export interface PairRound {
  /** Which ran first in this round: the order alternates. */
  first: 'limit' | 'create-cart';
  startsPerSec: number;
  createCartPerSec: number;
  ratioToLimit: number;
  p99RatioToLimit: number;
}

export interface PairedFigures {
  /** Each side measured on a Temporal server started again empty, or (one the bench did not start) on the one server the run shares. */
  freshServerPerSide: boolean;
  limit: Measurement;
  createCart: Measurement;
  /** Every round; `limit` and `createCart` are the round whose ratio is the median. */
  rounds: PairRound[];
}

/**
 * Create-cart against the raw start, in rounds that alternate which runs first. Measured once each,
 * the raw start always ran first, on a fresh server and an API still warming up: in one run its rate
 * fell 332 → 262 → 298 starts/s over three rounds while create-cart's rose 184 → 195, so a single
 * pair said 0.55× where the rounds after it said 0.74× and 0.64×. The round with the median ratio is
 * reported, its own figures together (./rounds.ts).
 *
 * Every side leaves its sessions open (45-minute timers), thousands a side, and a dev server slows as they
 * pile up: the same raw start went from 2.1 to 4.4 ms of server CPU over fifteen measurements on one
 * server (reports/bench-notes.md). So each side runs on a server started again empty, as
 * scripts/bench/start-metadata-fresh.ts does: the dev server in memory, or temporal-server on new
 * databases. A server given by TEMPORAL_ADDRESS runs both sides as it is.
 */
export async function measureCreateCartAgainstLimit(ctx: BenchContext, rounds: number): Promise<PairedFigures> {
  const { freshTemporal } = ctx.stack;
  const onFreshServer = async <T>(measure: () => Promise<T>): Promise<T> => {
    await freshTemporal?.(ctx.config.temporal.taskQueue);
    return measure();
  };
  const pairs: { limit: Measurement; createCart: Measurement; round: PairRound }[] = [];
  const measure = (side: 'limit' | 'create-cart') => onFreshServer(() => (side === 'limit' ? measureLimit(ctx) : measureCreateCart(ctx)));
  await measureInRounds(['limit', 'create-cart'] as const, rounds, measure, ({ first, limit, 'create-cart': createCart }, pass) => {
    const pairRound: PairRound = {
      first,
      startsPerSec: limit.perSec,
      createCartPerSec: createCart.perSec,
      ratioToLimit: round(createCart.perSec / limit.perSec, 2),
      p99RatioToLimit: round(createCart.p99Ms / limit.p99Ms, 2),
    };
    ctx.log(`  round ${pass} (${first} first): ${JSON.stringify(pairRound)}`);
    pairs.push({ limit, createCart, round: pairRound });
  });
  const median = medianRound(pairs, (p) => p.round.ratioToLimit, 'higher');
  return { freshServerPerSide: freshTemporal !== undefined, limit: median.limit, createCart: median.createCart, rounds: pairs.map((p) => p.round) };
}
