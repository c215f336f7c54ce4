import { NativeConnection, Runtime } from '@temporalio/worker';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { InProcessWorker } from '../core/http-service.js';
import type { Logger } from '../core/logger.js';
import { temporalConnectionOptions } from '../core/temporal/connection.js';
import { createCartWorker } from './create-worker.js';
import { sdkLoggerFrom } from './sdk-logger.js';
import { exitWhenWorkflowThreadStalls } from './workflow-thread-liveness.js';

/**
 * A cart worker inside the API process, for TEMPORAL_EAGER_START: the sessions the API starts
 * eagerly get their first workflow task in the start's answer, and this worker runs it (and, from
 * its sticky cache, their later tasks). It polls the task queue like any worker. It has no metrics
 * exporter of its own (the worker role's serves TEMPORAL_SDK_METRICS_ADDRESS), and no signal
 * handlers: the API stops it once its HTTP server has drained (core/http-service.ts).
 */
export async function startInProcessCartWorker(deps: { config: Config; db: Db; logger: Logger }): Promise<InProcessWorker> {
  Runtime.install({ shutdownSignals: [], logger: sdkLoggerFrom(deps.logger.child({ component: 'temporal-sdk' })) });
  const connection = await NativeConnection.connect(temporalConnectionOptions(deps.config));
  const worker = await createCartWorker({ ...deps, connection });
  const liveness = exitWhenWorkflowThreadStalls(worker, deps);
  const running = worker.run();
  return {
    connection,
    async stop() {
      liveness.stop();
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
