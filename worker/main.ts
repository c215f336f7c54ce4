import { NativeConnection } from '@temporalio/worker';
import { loadConfigOrExit } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { surviveOrphanedConnectionErrors } from '../core/db/connection-loss.js';
import { createLogger } from '../core/logger.js';
import { connectTemporal, temporalConnectionOptions } from '../core/temporal.js';
import { ensureCardVaultPurgeSchedule } from '../workflows/card-vault-purge/client.js';
import { createCartWorker } from './create-worker.js';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, name: 'worker' });
surviveOrphanedConnectionErrors(logger);
const db = createDb(config.databaseUrl);
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const worker = await createCartWorker({ config, db, logger, connection });
const temporal = connectTemporal(config);
await ensureCardVaultPurgeSchedule(temporal.client, config);
await temporal.close();
logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address }, 'worker polling');
// Worker.run() shuts down gracefully on SIGINT/SIGTERM by default.
await worker.run();
await connection.close();
await db.end();
