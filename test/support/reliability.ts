import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

/** Where each suite leaves its figures; scripts/verify.ts assembles them into reports/reliability.md. */
export const FIGURES_DIR = fileURLToPath(new URL('../../reports/.reliability/', import.meta.url));

/**
 * Trials per fault and the seed of their random plan. `npm test` runs a few trials (the default);
 * `npm run verify` sets RELIABILITY_TRIALS=20. RELIABILITY_SEED replays a run's plan exactly.
 */
export function reliabilitySettings(suite: string): { seed: number; trials: number } {
  const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);
  const trials = Number(process.env.RELIABILITY_TRIALS ?? 2);
  console.log(`${suite}: seed ${seed}, ${trials} trials (RELIABILITY_SEED=${seed} RELIABILITY_TRIALS=${trials} to repeat)`);
  return { seed, trials };
}

/** `count` values of `arbitrary`, the same ones for the same seed. */
export function planOf<T>(arbitrary: fc.Arbitrary<T>, seed: number, count: number): T[] {
  return fc.sample(arbitrary, { seed, numRuns: count });
}

/** What one suite measured. Counts the suite did not measure are left out, not reported as 0. */
export interface SuiteFigures {
  suite: string;
  title: string;
  seed?: number;
  trials?: number;
  faults?: Record<string, number>;
  sessionsChecked?: number;
  sessionsLost?: number;
  eventsRecorded?: number;
  eventsDelivered?: number;
  eventsLost?: number;
  /** Deliveries of an id the receiver had already acknowledged: at-least-once, deduplicated by id there. */
  eventsDuplicated?: number;
  eventsOutOfOrder?: number;
  maxChargesPerCart?: number;
  leaks?: string[];
  hostileInputs?: number;
  /** 5xx answers that are bugs. */
  serverErrors?: number;
  /** 503 SERVICE_UNAVAILABLE answers while a dependency was down on purpose: expected, counted apart. */
  expected503s?: number;
  notes?: string[];
}

export function reportFigures(figures: SuiteFigures): void {
  mkdirSync(FIGURES_DIR, { recursive: true });
  writeFileSync(`${FIGURES_DIR}${figures.suite}.json`, `${JSON.stringify({ ...figures, at: new Date().toISOString() }, null, 2)}\n`);
}
