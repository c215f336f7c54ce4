import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import protos from '@temporalio/proto';
import { Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { z } from 'zod';
import { bundleWorkflows } from '../../worker/create-worker.js';

/**
 * `npm run -s bench:stack-capture`: what the SDK's per-promise stack capture costs the workflow thread,
 * measured on replays of a recorded paid session (no server involved, so nothing but the worker's own
 * CPU is counted): the bundle as the worker runs it (workflows/sandbox-stack-capture.ts preloaded)
 * against the same bundle without the preload, alternating, in one run. Prints the medians and ratio.
 */
const { values } = parseArgs({ options: { replays: { type: 'string', default: '150' }, rounds: { type: 'string', default: '5' } } });
const options = z.object({ replays: z.coerce.number().int().positive(), rounds: z.coerce.number().int().positive() }).parse(values);
const HISTORY = fileURLToPath(new URL('../../test/fixtures/histories/1.2.0/cart-session-paid.history.json', import.meta.url));

Runtime.install({ logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } });
const history = protos.temporal.api.history.v1.History.fromObject(JSON.parse(readFileSync(HISTORY, 'utf8')) as object);

async function cpuMsPerReplay(workflowBundle: WorkflowBundleWithSourceMap): Promise<number> {
  const histories = Array.from({ length: options.replays }, (_, i) => ({ workflowId: `replay-${i}`, history }));
  const started = process.cpuUsage();
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) if (result.error) throw result.error;
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / options.replays;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const [preloaded, capturing] = await Promise.all([bundleWorkflows(), bundleWorkflows({ preloadModules: [] })]);
// Warm-up: the first replays of a bundle compile its code.
await cpuMsPerReplay(preloaded);
await cpuMsPerReplay(capturing);
const figures = { preloaded: [] as number[], capturing: [] as number[] };
for (let round = 0; round < options.rounds; round++) {
  figures.capturing.push(await cpuMsPerReplay(capturing));
  figures.preloaded.push(await cpuMsPerReplay(preloaded));
}
const result = {
  replaysPerRound: options.replays,
  rounds: options.rounds,
  stackCaptureOnCpuMsPerReplay: Number(median(figures.capturing).toFixed(2)),
  stackCaptureOffCpuMsPerReplay: Number(median(figures.preloaded).toFixed(2)),
  ratio: Number((median(figures.preloaded) / median(figures.capturing)).toFixed(2)),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
