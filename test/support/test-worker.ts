import { readFileSync } from 'node:fs';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfigOrExit } from '../../core/config.js';
import { createDb } from '../../core/db/client.js';
import { surviveOrphanedConnectionErrors } from '../../core/db/connection-loss.js';
import { createLogger } from '../../core/logger.js';
import { temporalConnectionOptions } from '../../core/temporal/connection.js';
import { createCartWorker } from '../../worker/create-worker.js';
import { sdkLoggerFrom } from '../../worker/sdk-logger.js';
import { exitWhenWorkflowThreadStalls } from '../../worker/workflow-thread-liveness.js';
import { testAcquirerProcessor } from './http-processor.js';

/**
 * worker/main.ts for fault injection: the same worker, running the workflow bundle the test built
 * once (TEST_WORKFLOW_BUNDLE, JSON {code, sourceMap}) so that a restart takes seconds instead of a
 * fresh bundle, and, given TEST_ACQUIRER_URL, charging through the test acquirer there (outside this
 * process, so a SIGKILL here loses no record of a charge); without it, the sandbox simulator.
 */
const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, name: 'worker' });
surviveOrphanedConnectionErrors(logger);
// As worker/main.ts: the SDK's lines go through our logger, into the output the suites scan.
Runtime.install({ logger: sdkLoggerFrom(logger.child({ component: 'temporal-sdk' })) });
const db = createDb(config.databaseUrl);
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const worker = await createCartWorker({
  config,
  db,
  logger,
  connection,
  ...(process.env.TEST_ACQUIRER_URL ? { paymentProcessor: testAcquirerProcessor(process.env.TEST_ACQUIRER_URL) } : {}),
  workflowBundle: JSON.parse(readFileSync(process.env.TEST_WORKFLOW_BUNDLE!, 'utf8')) as { code: string; sourceMap: string },
});
exitWhenWorkflowThreadStalls(worker, { config, logger });
logger.info({ taskQueue: config.temporal.taskQueue }, 'worker polling');
await worker.run();
await connection.close();
await db.end();
