import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { createLogger } from '../core/logger.js';
import { connectTemporal } from '../core/temporal.js';
import { ensureCardVaultPurgeSchedule } from '../workflows/card-vault-purge/client.js';
import { createCartWorker } from './create-worker.js';

const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'worker' });
const db = createDb(config.databaseUrl);
const connection = await NativeConnection.connect({ address: config.temporal.address });
const worker = await createCartWorker({ config, db, logger, connection });
const temporal = connectTemporal(config);
await ensureCardVaultPurgeSchedule(temporal.client, config);
await temporal.close();
logger.info({ taskQueue: config.temporal.taskQueue, address: config.temporal.address }, 'worker polling');
// Worker.run() shuts down gracefully on SIGINT/SIGTERM by default.
await worker.run();
await connection.close();
await db.end();
