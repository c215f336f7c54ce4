import { round } from './load.js';

/**
 * How the bench reads a comparison measured in rounds. The sides of a round run back to back and share
 * the machine's moment; across rounds the machine drifts by more than most levers move. So a ratio is
 * read inside each round, and the round reported is the one whose own ratio is the median. Reading each
 * side's lowest round apart made a ratio follow whichever side had one quiet round: 1.32–1.82 for the
 * same code in three runs of one day (reports/bench-notes.md, "The cost's ratio from paired rounds").
 */

/** The order the sides run in round `pass` (from 1): as given in odd rounds, reversed in even ones, so no side always goes first. */
export function inTurn<Side>(sides: readonly Side[], pass: number): Side[] {
  return pass % 2 === 1 ? [...sides] : [...sides].reverse();
}

/** One round's figures: every side's, and which side ran first. */
export type SidesRound<Side extends string, Figures> = { first: Side } & Record<Side, Figures>;

/**
 * `rounds` rounds, each measuring every side once in `inTurn`'s order. `measure` is given the side and
 * the round (from 1); `afterRound`, if given, sees each round as soon as it is measured, to log it.
 */
export async function measureInRounds<Side extends string, Figures>(
  sides: readonly Side[],
  rounds: number,
  measure: (side: Side, pass: number) => Promise<Figures>,
  afterRound?: (round: SidesRound<Side, Figures>, pass: number) => void,
): Promise<Array<SidesRound<Side, Figures>>> {
  const measured: Array<SidesRound<Side, Figures>> = [];
  for (let pass = 1; pass <= rounds; pass++) {
    const order = inTurn(sides, pass);
    const figures = {} as Record<Side, Figures>;
    for (const side of order) figures[side] = await measure(side, pass);
    const sidesRound = { first: order[0]!, ...figures } as SidesRound<Side, Figures>;
    afterRound?.(sidesRound, pass);
    measured.push(sidesRound);
  }
  return measured;
}

/**
 * The round whose `ratio` is the median. Of an even count, the middle round that flatters us less:
 * the higher ratio when a lower one is `better` (a cost), the lower when a higher one is (a rate).
 */
export function medianRound<Round>(rounds: readonly Round[], ratio: (round: Round) => number, better: 'lower' | 'higher'): Round {
  if (rounds.length === 0) throw new Error('no rounds to read');
  const sorted = [...rounds].sort((a, b) => ratio(a) - ratio(b));
  return sorted[better === 'lower' ? Math.floor(sorted.length / 2) : Math.floor((sorted.length - 1) / 2)]!;
}

/** A cost's ratio read in its median round (medianRound): the ratio, the two figures it divides, and which round (from 1). */
export function costRatio<Round>(rounds: readonly Round[], of: (round: Round) => number, against: (round: Round) => number) {
  return ratioInRounds(rounds, of, against, 'lower');
}

/** A rate's ratio (starts or carts a second) read the same way: of an even count, the lower middle. */
export function rateRatio<Round>(rounds: readonly Round[], of: (round: Round) => number, against: (round: Round) => number) {
  return ratioInRounds(rounds, of, against, 'higher');
}

function ratioInRounds<Round>(rounds: readonly Round[], of: (round: Round) => number, against: (round: Round) => number, better: 'lower' | 'higher') {
  const inRound = (r: Round) => of(r) / against(r);
  const median = medianRound(rounds, inRound, better);
  return { ratio: round(inRound(median), 2), of: of(median), against: against(median), round: rounds.indexOf(median) + 1 };
}
