import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfigOrExit } from '../../../core/config.js';
import { temporalConnectionOptions } from '../../../core/temporal/connection.js';
import { STICKY_SCHEDULE_TO_START_MS } from '../../../core/temporal/worker-loss.js';
import { WORKFLOW_PRELOAD_MODULES } from '../../../worker/create-worker.js';
import { floorActivities } from './activities.js';

/**
 * The floor's worker, a process of its own like ours (worker/main.ts), with the same worker settings:
 * the cache size and the sticky queue's timeout. It leaves out what is ours: the payload codec, the
 * operator summaries' interceptor, PostgreSQL, metrics. `FLOOR_SANDBOX=ours`: the workflow sandbox
 * set as ours is too (worker/create-worker.ts: the preloaded modules, which turn the SDK's per-promise
 * stack capture off, and the watchdog as configured); otherwise the SDK's defaults.
 */
const config = loadConfigOrExit();
const sandboxAsOurs = process.env.FLOOR_SANDBOX === 'ours';
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const worker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  activities: floorActivities,
  maxCachedWorkflows: config.worker.maxCachedWorkflows,
  stickyQueueScheduleToStartTimeout: STICKY_SCHEDULE_TO_START_MS,
  ...(sandboxAsOurs ? { bundlerOptions: { preloadModules: WORKFLOW_PRELOAD_MODULES }, isolateExecutionTimeout: config.worker.sandboxWatchdogMs } : {}),
});
await worker.run();
await connection.close();
