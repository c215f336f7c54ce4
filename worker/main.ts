import { NativeConnection, Runtime } from '@temporalio/worker';
import { createActivityMetrics } from '../activities/metrics.js';
import { loadConfigOrExit } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { surviveOrphanedConnectionErrors } from '../core/db/connection-loss.js';
import { createLogger } from '../core/logger.js';
import { connectTemporal, temporalConnectionOptions } from '../core/temporal/connection.js';
import { ensureCardVaultPurgeSchedule } from '../workflows/card-vault-purge/client.js';
import { ensureDomainRecheckSchedule } from '../workflows/domain-verification/client.js';
import { ensurePageIntegrityCheckSchedule } from '../workflows/page-integrity-check/client.js';
import { ensureSavedCardRemovalSchedule } from '../workflows/saved-card-removal/client.js';
import { createCartWorker } from './create-worker.js';
import { serveWorkerMetrics, workerTelemetryOptions } from './metrics.js';
import { sdkLoggerFrom } from './sdk-logger.js';
import { exitWhenWorkflowThreadStalls } from './workflow-thread-liveness.js';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, name: 'worker' });
surviveOrphanedConnectionErrors(logger);
// Before any connection: the SDK's metrics exporter is part of the runtime. Its log lines go through
// our redacting logger, not the SDK's console one.
Runtime.install({
  logger: sdkLoggerFrom(logger.child({ component: 'temporal-sdk' })),
  telemetryOptions: workerTelemetryOptions(config.workerMetrics.temporalSdkAddress),
});
const db = createDb(config.databaseUrl);
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const metrics = createActivityMetrics();
const worker = await createCartWorker({ config, db, logger, connection, metrics });
exitWhenWorkflowThreadStalls(worker, { config, logger });
const metricsServer = await serveWorkerMetrics({ config, db, registry: metrics.registry });
const temporal = connectTemporal(config);
await ensureCardVaultPurgeSchedule(temporal.client, config);
await ensureDomainRecheckSchedule(temporal.client, config);
await ensureSavedCardRemovalSchedule(temporal.client, config);
// The tamper check walks the pages with a canary merchant's carts: without one there is nothing to walk.
if (config.integrityCheck.canaryMerchantId) await ensurePageIntegrityCheckSchedule(temporal.client, config);
else logger.warn('the payment page tamper check is off: INTEGRITY_CANARY_MERCHANT_ID is not set (docs/security.md, Payment page integrity)');
await temporal.close();
logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address, metrics: `${metricsServer.url}/metrics` }, 'worker polling');
// Worker.run() shuts down gracefully on SIGINT/SIGTERM by default.
await worker.run();
await metricsServer.close();
await connection.close();
await db.end();
