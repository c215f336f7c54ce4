import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfigOrExit } from '../../../core/config.js';
import { temporalConnectionOptions } from '../../../core/temporal/connection.js';
import { STICKY_SCHEDULE_TO_START_MS } from '../../../core/temporal/worker-loss.js';
import { floorActivities } from './activities.js';

/**
 * The floor's worker, a process of its own like ours (worker/main.ts), with the same worker settings:
 * the cache size and the sticky queue's timeout. It leaves out what is ours: the payload codec, the
 * operator summaries' interceptor, PostgreSQL, metrics.
 */
const config = loadConfigOrExit();
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const worker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  activities: floorActivities,
  maxCachedWorkflows: config.worker.maxCachedWorkflows,
  stickyQueueScheduleToStartTimeout: STICKY_SCHEDULE_TO_START_MS,
});
await worker.run();
await connection.close();
