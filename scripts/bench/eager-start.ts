import { cartRequestBody, settle, WARM_UP_S, type BenchContext } from './context.js';
import { cpuMeter, cpuMsPer } from './cpu.js';
import { httpLoad, median, round, type LoadFigures } from './load.js';
import { costRatio, measureInRounds } from './rounds.js';
import { COST_CONCURRENCY, measureSessionCost } from './session-cost.js';
import { processGroups, startRoles, type Roles } from './stack.js';

/** The one setting the two sides differ in (docs/decisions/session-cost.md, "Eager workflow start"). */
const EAGER = { off: { TEMPORAL_EAGER_START: 'false' }, on: { TEMPORAL_EAGER_START: 'true' } } as const;
type Side = keyof typeof EAGER;

type CreateFigures = LoadFigures & {
  /** Every process (Temporal, PostgreSQL, worker, API) per created cart, until the worker has run every session's first task. */
  cpuMsPerCart: number;
  cpuMsByProcess: Record<string, number>;
};

/**
 * Create-cart under load on `roles`, metered from the first request until the worker has taken every
 * session's first workflow task (settle): without eager start that task may still wait in the queue
 * when the load stops, and its CPU belongs to the carts created.
 */
async function createCarts(ctx: BenchContext, roles: Roles, taskQueue: string): Promise<CreateFigures> {
  const load = {
    url: `${roles.apiUrl}/v2/public/api/cart/`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: cartRequestBody(ctx.merchant.platformUuid),
    connections: ctx.concurrency,
  };
  await settle(ctx, taskQueue);
  const meter = cpuMeter(processGroups(ctx.stack, roles));
  const figures = await httpLoad({ ...load, durationS: ctx.durationS });
  await settle(ctx, taskQueue);
  const cpu = meter.stop();
  const { bench: _bench, ...byProcess } = cpuMsPer(cpu, figures.requests);
  return {
    ...figures,
    cpuMsPerCart: round(
      Object.values(byProcess).reduce((a, b) => a + b, 0),
      1,
    ),
    cpuMsByProcess: byProcess,
  };
}

/**
 * Eager workflow start measured alone, in one run: two sets of roles on the same servers, each with a
 * worker process and an API, the same code, differing only in TEMPORAL_EAGER_START, measured in turns
 * (which goes first alternates), `rounds` times. Each side's figures are the medians of its rounds;
 * each ratio is read in its median round (./rounds.ts).
 */
export async function measureEagerCreateCart(ctx: BenchContext, rounds: number) {
  const sides = {} as Record<Side, { roles: Roles; taskQueue: string }>;
  for (const side of ['off', 'on'] as const) {
    const taskQueue = `bench-eager-${side}`;
    sides[side] = { taskQueue, roles: await startRoles(ctx.stack, { taskQueue, web: false, env: EAGER[side] }) };
  }
  try {
    for (const side of ['off', 'on'] as const)
      await httpLoad({
        url: `${sides[side].roles.apiUrl}/v2/public/api/cart/`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: cartRequestBody(ctx.merchant.platformUuid),
        connections: ctx.concurrency,
        durationS: WARM_UP_S,
      });
    const measured = await measureInRounds(
      ['off', 'on'] as const,
      rounds,
      (side) => createCarts(ctx, sides[side].roles, sides[side].taskQueue),
      (figures, pass) =>
        ctx.log(
          `  round ${pass} (${figures.first} first): off ${figures.off.cpuMsPerCart} ms/cart, p50 ${figures.off.p50Ms} p99 ${figures.off.p99Ms} ms, ${figures.off.perSec}/s; ` +
            `on ${figures.on.cpuMsPerCart} ms/cart, p50 ${figures.on.p50Ms} p99 ${figures.on.p99Ms} ms, ${figures.on.perSec}/s; ` +
            `by process off ${JSON.stringify(figures.off.cpuMsByProcess)}, on ${JSON.stringify(figures.on.cpuMsByProcess)}`,
        ),
    );
    const summary = (side: Side) => ({
      cpuMsPerCart: median(measured.map((r) => r[side].cpuMsPerCart)),
      p50Ms: median(measured.map((r) => r[side].p50Ms)),
      p99Ms: median(measured.map((r) => r[side].p99Ms)),
      perSec: median(measured.map((r) => r[side].perSec)),
      errors: measured.reduce((n, r) => n + r[side].errors, 0),
    });
    const off = summary('off');
    const on = summary('on');
    return {
      off,
      on,
      /** On over off, each in its median round: below 1 is a saving. */
      cpuRatio: onOverOff(measured, (f) => f.cpuMsPerCart),
      p50Ratio: onOverOff(measured, (f) => f.p50Ms),
      p99Ratio: onOverOff(measured, (f) => f.p99Ms),
      /** The CPU ratio round by round: how far one round says more than the median one. */
      roundCpuRatios: measured.map((r) => round(r.on.cpuMsPerCart / r.off.cpuMsPerCart, 2)),
      rounds: measured,
    };
  } finally {
    await Promise.allSettled([sides.off?.roles.stop(), sides.on?.roles.stop()]);
  }
}

/**
 * The whole paid and abandoned session (scripts/bench/session-cost.ts) with eager start off and on,
 * in turns, `rounds` times; each side's figures the medians of its rounds, each ratio read in its
 * median round.
 */
export async function measureEagerSessionCost(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number }) {
  const measured = await measureInRounds(
    ['off', 'on'] as const,
    options.rounds,
    async (side, pass) => {
      const cost = await measureSessionCost(ctx, { code: `eager-${side}-${pass}`, ...options, concurrency: COST_CONCURRENCY, env: EAGER[side] });
      return {
        paid: cost.paidSessionCpuMs,
        abandoned: cost.abandonedSessionCpuMs,
        byProcess: cost.paid.cpuMsByProcess,
        abandonedByProcess: cost.abandoned.cpuMsByProcess,
      };
    },
    (round_, pass) =>
      ctx.log(
        `  cost round ${pass} (${round_.first} first): off paid ${round_.off.paid} abandoned ${round_.off.abandoned} ${JSON.stringify(round_.off.byProcess)} ${JSON.stringify(round_.off.abandonedByProcess)}; ` +
          `on paid ${round_.on.paid} abandoned ${round_.on.abandoned} ${JSON.stringify(round_.on.byProcess)} ${JSON.stringify(round_.on.abandonedByProcess)}`,
      ),
  );
  const off = { paidSessionCpuMs: median(measured.map((r) => r.off.paid)), abandonedSessionCpuMs: median(measured.map((r) => r.off.abandoned)) };
  const on = { paidSessionCpuMs: median(measured.map((r) => r.on.paid)), abandonedSessionCpuMs: median(measured.map((r) => r.on.abandoned)) };
  return {
    off,
    on,
    paidRatio: onOverOff(measured, (f) => f.paid),
    abandonedRatio: onOverOff(measured, (f) => f.abandoned),
    rounds: measured,
  };
}

/** A cost with eager start on over off, read in its median round. */
function onOverOff<Figures>(rounds: ReadonlyArray<Record<Side, Figures>>, cost: (figures: Figures) => number): number {
  return costRatio(
    rounds,
    (r) => cost(r.on),
    (r) => cost(r.off),
  ).ratio;
}
