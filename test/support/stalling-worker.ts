import { fileURLToPath } from 'node:url';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { loadConfigOrExit } from '../../core/config.js';
import { createLogger } from '../../core/logger.js';
import { temporalConnectionOptions } from '../../core/temporal/connection.js';
import { sdkLoggerFrom } from '../../worker/sdk-logger.js';
import { exitWhenWorkflowThreadStalls } from '../../worker/workflow-thread-liveness.js';

/**
 * worker/main.ts's sandbox settings and liveness watch, on a workflow that never yields
 * (./stalling-workflow.ts) instead of the cart's: configured by environment only, as a deployment is.
 */
const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, name: 'worker' });
Runtime.install({ logger: sdkLoggerFrom(logger.child({ component: 'temporal-sdk' })) });
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const worker = await Worker.create({
  connection,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  workflowsPath: fileURLToPath(new URL('./stalling-workflow.ts', import.meta.url)),
  isolateExecutionTimeout: config.worker.sandboxWatchdogMs,
});
exitWhenWorkflowThreadStalls(worker, { config, logger });
logger.info({ taskQueue: config.temporal.taskQueue }, 'worker polling');
await worker.run();
await connection.close();
