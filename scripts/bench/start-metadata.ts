import { startMinimalSession, startMinimalSessionForOperators, type BenchContext } from './context.js';
import { measureStarts } from './limit.js';
import { round } from './load.js';
import { measureInRounds, medianRound } from './rounds.js';

type Side = 'bare' | 'operators';

interface StartFigures {
  startsPerSec: number;
  /** CPU per start, by process (the bench is the client), until the machine was quiet again after the last. */
  cpuMsPerStart: Record<string, number>;
}

export interface StartMetadataRound {
  first: Side;
  bare: StartFigures;
  operators: StartFigures;
  /** operators' rate over bare's: the most create-cart's ratio to the raw start can be with the API and PostgreSQL free. */
  ratio: number;
}

/**
 * What the start's operator metadata costs (`--only start-metadata`): the raw start the limit measures
 * against the same start with create-cart's search attributes, memo, summary and details, in rounds
 * that alternate which runs first. Neither goes through HTTP or PostgreSQL, so the median ratio bounds
 * create-cart's `ratioToLimit` whatever the API and the ledger cost. Both run on the bench's one server,
 * which slows as the sessions each side leaves open pile up: ./start-metadata-fresh.ts gives each side
 * a fresh dev server.
 */
export async function measureStartMetadata(ctx: BenchContext, rounds: number): Promise<{ rounds: StartMetadataRound[]; medianRatio: number }> {
  const measured: StartMetadataRound[] = [];
  const measure = async (side: Side): Promise<StartFigures> => {
    const starts = await measureStarts(ctx, side === 'bare' ? startMinimalSession : startMinimalSessionForOperators, { drain: true });
    return { startsPerSec: starts.perSec, cpuMsPerStart: starts.cpuMsPerRequest };
  };
  await measureInRounds<Side, StartFigures>(['bare', 'operators'], rounds, measure, (figures, pass) => {
    const r: StartMetadataRound = { ...figures, ratio: round(figures.operators.startsPerSec / figures.bare.startsPerSec, 2) };
    ctx.log(`  round ${pass} (${r.first} first): ${JSON.stringify(r)}`);
    measured.push(r);
  });
  return { rounds: measured, medianRatio: medianRound(measured, (r) => r.ratio, 'higher').ratio };
}
