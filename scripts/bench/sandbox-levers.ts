import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import protos from '@temporalio/proto';
import { Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { z } from 'zod';
import { bundleWorkflows, WORKFLOW_INTERCEPTORS } from '../../worker/create-worker.js';
import { median } from './load.js';
import { costRatio, measureInRounds } from './rounds.js';

/**
 * `npm run -s bench:sandbox`: what the workflow sandbox's fixed costs take from the worker, on replays
 * of a recorded paid session (no server involved, so only the worker's own CPU is counted), each lever
 * alone and together, alternating, in one run: the SDK's per-promise stack capture (off through
 * workflows/sandbox-stack-capture.ts, preloaded), the watchdog on every call into the sandbox (off with
 * WORKER_SANDBOX_WATCHDOG_SECONDS=0), and each workflow's module set-up (1.2's: zod and the dispute
 * evidence schema imported, the code digest not preloaded). Each replay creates its workflow, as a new
 * session or a replay after eviction does. Prints the median CPU per replay of each and its ratio to the
 * SDK's defaults read in the median round (./rounds.ts), where both ran back to back.
 */
const { values } = parseArgs({ options: { replays: { type: 'string', default: '150' }, rounds: { type: 'string', default: '5' } } });
const options = z.object({ replays: z.coerce.number().int().positive(), rounds: z.coerce.number().int().positive() }).parse(values);
const HISTORY = fileURLToPath(new URL('../../test/fixtures/histories/1.2.0/cart-session-paid.history.json', import.meta.url));
const SDK_WATCHDOG_MS = 5_000;

Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } });
const history = protos.temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(HISTORY, 'utf8')) as object);

async function cpuMsPerReplay(workflowBundle: WorkflowBundleWithSourceMap, isolateExecutionTimeout: number): Promise<number> {
  const histories = Array.from({ length: options.replays }, (_, i) => ({ workflowId: `replay-${i}`, history }));
  const started = process.cpuUsage();
  for await (const result of Worker.runReplayHistories({ workflowBundle, isolateExecutionTimeout }, histories)) if (result.error) throw result.error;
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / options.replays;
}

const STACK_CAPTURE_OFF = fileURLToPath(new URL('../../workflows/sandbox-stack-capture.ts', import.meta.url));
const EVIDENCE_SCHEMA = fileURLToPath(new URL('./sandbox/evidence-schema-per-workflow.ts', import.meta.url));
const [capturing, stackCaptureOff, release12Modules, workersNow] = await Promise.all([
  bundleWorkflows({ preloadModules: [] }),
  bundleWorkflows({ preloadModules: [STACK_CAPTURE_OFF] }),
  bundleWorkflows({ preloadModules: [STACK_CAPTURE_OFF], workflowInterceptorModules: [...WORKFLOW_INTERCEPTORS, EVIDENCE_SCHEMA] }),
  bundleWorkflows(),
]);
const variants = {
  sdkDefaults: () => cpuMsPerReplay(capturing, SDK_WATCHDOG_MS),
  stackCaptureOff: () => cpuMsPerReplay(stackCaptureOff, SDK_WATCHDOG_MS),
  watchdogOff: () => cpuMsPerReplay(capturing, 0),
  bothOff: () => cpuMsPerReplay(stackCaptureOff, 0),
  /** Both off, with 1.2's module set-up. */
  bothOffWith12Modules: () => cpuMsPerReplay(release12Modules, 0),
  /** The workers' defaults now: both off, the digest preloaded. */
  workersNow: () => cpuMsPerReplay(workersNow, 0),
};
type Variant = keyof typeof variants;
// Warm-up: the first replays of a bundle compile its code.
for (const run of Object.values(variants)) await run();
const names = Object.keys(variants) as Variant[];
const rounds = await measureInRounds(names, options.rounds, (name) => variants[name]());

const overDefaults = (k: Variant) =>
  costRatio(
    rounds,
    (r) => r[k],
    (r) => r.sdkDefaults,
  ).ratio;
const result = {
  replaysPerRound: options.replays,
  rounds: options.rounds,
  cpuMsPerReplay: Object.fromEntries(names.map((k) => [k, Number(median(rounds.map((r) => r[k])).toFixed(2))])),
  ratioToSdkDefaults: Object.fromEntries(names.map((k) => [k, overDefaults(k)])),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
