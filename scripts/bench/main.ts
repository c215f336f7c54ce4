import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../../core/config.js';
import { createDb } from '../../core/db/client.js';
import { connectTemporal } from '../../core/temporal/connection.js';
import { TEMPORAL_TOPOLOGIES } from '../infrastructure.js';
import { ensureTemporalCli } from '../temporal-cli.js';
import { TEMPORAL_SERVER_VERSION } from '../temporal-sql-server.js';
import { measureBaseline } from './baseline.js';
import { settle, type BenchContext } from './context.js';
import { measureCostCurve } from './cost-curve.js';
import { measureCreateCart } from './create-cart.js';
import { measureEagerCreateCart, measureEagerSessionCost } from './eager-start.js';
import { measureLimit } from './limit.js';
import { measurePage, measurePageAfterFirstAction } from './page.js';
import { measurePayToLanding } from './pay-to-landing.js';
import { measurePayToWebhook } from './pay-to-webhook.js';
import { registerReceivingMerchant, startVerifyingReceiver } from './receiver.js';
import { assembleResults, topologyFigures, withTargets, writeReports, type BenchResults, type Measured } from './report.js';
import { measureScale } from './scale.js';
import { runPeakBench } from './peak.js';
import { measureCost, measureCostAgainst, measureFloorSandbox } from './session-cost.js';
import { measureStepCost } from './step-cost.js';
import { startBenchStack, startRoles } from './stack.js';
import { measureStartMetadata } from './start-metadata.js';
import { measureCreateCartAgainstLimit } from './start-pairs.js';

/**
 * `npm run bench`: every figure of reports/bench.md in one run, on a stack of its own (or on
 * DATABASE_URL / TEMPORAL_ADDRESS when given). `--only limit,create-cart` runs some measurements
 * and prints them without touching reports/.
 */
const MEASUREMENTS = ['limit', 'create-cart', 'baseline', 'page', 'pay-to-webhook', 'pay-to-landing', 'cost-curve', 'cost', 'scale'] as const;
/** Run only when named in --only: each compares a setting off and on, and adds nothing to reports/. */
const COMPARISONS = ['eager-start', 'eager-cost', 'floor-sandbox', 'cost-before', 'step-cost', 'start-metadata'] as const;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    concurrency: { type: 'string', default: '32' },
    duration: { type: 'string', default: '10' },
    sessions: { type: 'string', default: '10000' },
    'pay-carts': { type: 'string', default: '200' },
    'landing-checkouts': { type: 'string', default: '20' },
    'cost-sessions': { type: 'string', default: '100' },
    'cost-rounds': { type: 'string', default: '3' },
    'pair-rounds': { type: 'string', default: '5' },
    'eager-rounds': { type: 'string', default: '5' },
    lifetime: { type: 'string' },
    out: { type: 'string', default: 'reports' },
    render: { type: 'boolean', default: false },
    topology: { type: 'string' },
    'record-topology': { type: 'boolean', default: false },
    peak: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    seed: { type: 'string' },
    before: { type: 'string' },
  },
});
const options = z
  .object({
    only: z
      .string()
      .transform((s) => s.split(','))
      .pipe(z.array(z.enum([...MEASUREMENTS, ...COMPARISONS])))
      .optional(),
    concurrency: z.coerce.number().int().positive(),
    duration: z.coerce.number().positive(),
    sessions: z.coerce.number().int().positive(),
    'pay-carts': z.coerce.number().int().positive(),
    /** Checkouts paid in Chromium, one at a time, for payToLanding. */
    'landing-checkouts': z.coerce.number().int().positive(),
    /** Paid sessions per cost measurement; twice as many abandoned ones. */
    'cost-sessions': z.coerce.number().int().positive(),
    /** Rounds of the floor's and our cost measurements, alternating which runs first; each ratio is its median round's. */
    'cost-rounds': z.coerce.number().int().positive(),
    /** Rounds of create-cart against the raw start (and of `--only start-metadata`'s two starts), alternating which runs first; the median round is reported. */
    'pair-rounds': z.coerce.number().int().positive(),
    /** Rounds of eager start off and on (`--only eager-start`, `eager-cost`), alternating which runs first; medians are reported. */
    'eager-rounds': z.coerce.number().int().positive(),
    /** Scale sessions' lifetime in seconds; by default long enough for all of them to be open at once. */
    lifetime: z.coerce.number().int().positive().optional(),
    out: z.string(),
    /** Only re-renders bench.md and the chart from bench.json (after editing bench-notes.md). */
    render: z.boolean(),
    /** `dev`: the Temporal CLI's dev server (SQLite), the default; `server`: temporal-server on PostgreSQL, as in production (--peak's default). */
    topology: z.enum(TEMPORAL_TOPOLOGIES).optional(),
    /** With --only: still record this run's figures as its topology's in bench-topologies.json beside bench.json (a full run always does). */
    'record-topology': z.boolean(),
    /** Only the peak-day run (scripts/bench/peak.ts), its figures added to bench.json under `peak`. */
    peak: z.boolean(),
    /** With --peak: a run of about six minutes that checks the harness; written only to a --out other than reports. */
    quick: z.boolean(),
    /** With --peak: the seed of its arrivals and session mix; random by default. */
    seed: z.coerce.number().int().nonnegative().optional(),
    /** With --only cost-before or step-cost: another checkout of the project (a worktree of the commit before a change) whose sessions are measured beside these. */
    before: z.string().optional(),
  })
  .parse(values);
const topology = options.topology ?? (options.peak ? 'server' : 'dev');
const runs = (m: (typeof MEASUREMENTS)[number]) => !options.only || options.only.includes(m);
const compares = (c: (typeof COMPARISONS)[number]) => options.only?.includes(c) ?? false;
const log = (line: string) => process.stdout.write(`${line}\n`);
/** The checkout `--only cost-before` and `step-cost` measure beside this one, asked for before any server starts. */
const beforeCheckout = (): string => path.resolve(options.before!);
if ((compares('cost-before') || compares('step-cost')) && !(options.before && existsSync(path.join(path.resolve(options.before), 'worker', 'main.ts')))) {
  process.stderr.write('--only cost-before and step-cost need --before <dir>: another checkout of the project, e.g. `git worktree add /tmp/before HEAD~1`.\n');
  process.exit(2);
}
const benchStarted = performance.now();

const versionOf = (pkg: string) => (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

const notesFile = path.join(ROOT, options.out, 'bench-notes.md');
const notes = () => (existsSync(notesFile) ? readFileSync(notesFile, 'utf8') : '');
const benchFile = path.join(ROOT, options.out, 'bench.json');
const committedResults = () => JSON.parse(readFileSync(benchFile, 'utf8')) as BenchResults;
/** Each topology's figures from its latest recorded run, this run's `results` (when given) replacing its own topology's. */
const topologiesFile = path.join(ROOT, options.out, 'bench-topologies.json');
function recordTopology(results?: BenchResults): BenchResults['topologies'] {
  const recorded = (existsSync(topologiesFile) ? JSON.parse(readFileSync(topologiesFile, 'utf8')) : {}) as NonNullable<BenchResults['topologies']>;
  if (!results) return recorded;
  const topologies = { ...recorded, [topology]: topologyFigures(results) };
  writeFileSync(topologiesFile, JSON.stringify(topologies, null, 2) + '\n');
  return topologies;
}
if (options.render) {
  writeReports(path.join(ROOT, options.out), withTargets({ ...committedResults(), topologies: recordTopology() }), notes());
  log(`Re-rendered ${options.out}/bench.md and bench-latency.svg from bench.json.`);
  process.exit(0);
}

if (options.peak) {
  const peak = await runPeakBench({ topology, quick: options.quick, seed: options.seed ?? Date.now() % 2 ** 31, log });
  log(JSON.stringify({ ...peak, timeline: undefined }, null, 2));
  if (options.quick && options.out === 'reports') log('A quick run leaves reports/ alone: give --out <folder> to render its report there.');
  else {
    const dir = path.resolve(ROOT, options.out);
    const earlier = existsSync(path.join(dir, 'bench.json')) ? (JSON.parse(readFileSync(path.join(dir, 'bench.json'), 'utf8')) as BenchResults) : undefined;
    const base = earlier ?? { generatedAt: new Date().toISOString(), machine: {}, versions: {}, concurrency: options.concurrency, durationS: options.duration };
    writeReports(dir, withTargets({ ...base, peak, topologies: recordTopology() }), notes());
    log(`Wrote peak into ${path.join(dir, 'bench.json')}, bench.md and bench-peak.svg.`);
  }
  process.exit(0);
}

log('Starting PostgreSQL, Temporal and the roles…');
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  kernel: release(),
  loadAverageAtStart: loadavg()[0]!.toFixed(2),
};
const stack = await startBenchStack(() => {}, topology);
try {
  const roles = await startRoles(stack, { taskQueue: 'bench' });
  const config = loadConfig({ ...stack.baseEnv, ...roles.env });
  const db = createDb(config.databaseUrl);
  const temporal = connectTemporal(config);
  const receiver = await startVerifyingReceiver();
  try {
    const merchant = await registerReceivingMerchant(receiver, { db, config }, 'Bench Store');
    const ctx: BenchContext = { stack, roles, config, db, temporal, merchant, concurrency: options.concurrency, durationS: options.duration, log };
    const postgresVersion = (await db<{ version: string }[]>`select version()`)[0]!.version;
    const temporalServer = process.env.TEMPORAL_ADDRESS
      ? 'external'
      : topology === 'server'
        ? `temporal-server ${TEMPORAL_SERVER_VERSION} on PostgreSQL`
        : execFileSync(await ensureTemporalCli(() => {}), ['--version'], { encoding: 'utf8' }).trim();
    const versions = {
      node: process.version,
      postgresql: process.env.DATABASE_URL ? `external: ${postgresVersion}` : postgresVersion.split(',')[0]!,
      temporalServer,
      '@temporalio/client': versionOf('@temporalio/client'),
      hono: versionOf('hono'),
      autocannon: versionOf('autocannon'),
    };

    const m: Measured = {};
    const lastPeak = existsSync(benchFile) && committedResults().peak ? { peak: committedResults().peak } : {};
    const report = () => {
      const results = assembleResults(
        { generatedAt: new Date().toISOString(), machine, versions, concurrency: options.concurrency, durationS: options.duration },
        m,
      );
      // A full run writes what it has after each measurement, so a run cut short still leaves its figures.
      // The peak run (`--peak`) is a run of its own: a full run keeps the last one's figures beside its own.
      if (!options.only) writeReports(path.join(ROOT, options.out), withTargets({ ...results, ...lastPeak, topologies: recordTopology(results) }), notes());
      return results;
    };
    const step = async <T>(name: (typeof MEASUREMENTS)[number], run: () => Promise<T>): Promise<T | undefined> => {
      if (!runs(name)) return undefined;
      // The scale run has roles of its own; the main ones are stopped by then.
      if (name !== 'scale') await settle(ctx);
      log(`${name}…`);
      const result = await run();
      log(`  ${JSON.stringify(result)}`);
      return result;
    };
    if (runs('limit') && runs('create-cart')) {
      const paired = await step('limit', () => measureCreateCartAgainstLimit(ctx, options['pair-rounds']));
      if (paired)
        Object.assign(m, { limit: paired.limit, createCart: paired.createCart, pairRounds: paired.rounds, freshServerPerSide: paired.freshServerPerSide });
    } else {
      m.limit = await step('limit', () => measureLimit(ctx));
      m.createCart = await step('create-cart', () => measureCreateCart(ctx));
    }
    report();
    m.baseline = await step('baseline', () => measureBaseline(ctx));
    report();
    m.page = await step('page', () => measurePage(ctx));
    m.pageAfterFirstAction = await step('page', () => measurePageAfterFirstAction(ctx));
    report();
    m.payToWebhook = await step('pay-to-webhook', () => measurePayToWebhook(ctx, receiver, options['pay-carts']));
    // One customer at a time: the latency of the path itself, without 31 others' payments queued ahead of it.
    m.payToWebhookAlone = await step('pay-to-webhook', () => measurePayToWebhook(ctx, receiver, Math.ceil(options['pay-carts'] / 4), 1));
    report();
    m.payToLanding = await step('pay-to-landing', () => measurePayToLanding(ctx, receiver, options['landing-checkouts']));
    report();
    m.costCurve = await step('cost-curve', () => measureCostCurve(ctx, m));
    report();
    const sessions = { paidSessions: options['cost-sessions'], abandonedSessions: 2 * options['cost-sessions'] };
    const costRounds = options['cost-rounds'];
    m.cost = await step('cost', () => measureCost(ctx, { ...sessions, rounds: costRounds }));
    report();
    const comparisons: Record<(typeof COMPARISONS)[number], () => Promise<object>> = {
      'eager-start': () => measureEagerCreateCart(ctx, options['eager-rounds']),
      'eager-cost': () => measureEagerSessionCost(ctx, { ...sessions, rounds: options['eager-rounds'] }),
      'start-metadata': () => measureStartMetadata(ctx, options['pair-rounds']),
      'floor-sandbox': () => measureFloorSandbox(ctx, { ...sessions, rounds: costRounds }),
      'cost-before': () => measureCostAgainst(ctx, { ...sessions, rounds: costRounds, before: beforeCheckout() }),
      'step-cost': () => measureStepCost(ctx, { steps: 10 * options['cost-sessions'], rounds: costRounds, before: beforeCheckout() }),
    };
    for (const comparison of COMPARISONS.filter(compares)) {
      await settle(ctx);
      log(`${comparison}…`);
      const figures = await comparisons[comparison]();
      log(`  ${JSON.stringify({ ...figures, rounds: undefined })}`);
    }
    // The scale run gets the machine to itself: its own worker and API, on a task queue of its own.
    await roles.stop();
    const createRate = m.createCart?.perSec ?? 50;
    // Twice the time the create-cart rate predicts: opening 10,000 sessions runs slower than 10 s of
    // create-cart (the worker's first tasks pile up), and every session must still be open at the end.
    const lifetimeS = options.lifetime ?? Math.max(60, Math.ceil((options.sessions / createRate) * 2) + 30);
    m.scale = await step('scale', () => measureScale(ctx, options.sessions, lifetimeS));

    const results = report();
    if (options.only && options['record-topology']) {
      writeReports(path.join(ROOT, options.out), withTargets({ ...committedResults(), topologies: recordTopology(results) }), notes());
      log(`Recorded this run's figures for ${topology} in ${options.out}/bench-topologies.json and bench.md.`);
    }
    log(`\n${JSON.stringify(results.targets, null, 2)}\nThe whole run took ${Math.round((performance.now() - benchStarted) / 1000)} s.`);
    if (options.only) log(JSON.stringify(results, null, 2));
    else log(`Wrote ${options.out}/bench.json, bench.md and bench-latency.svg.`);
  } finally {
    await receiver.close();
    await Promise.allSettled([temporal.close(), db.end()]);
  }
} finally {
  await stack.stop();
}
