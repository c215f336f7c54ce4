import { serve } from '@hono/node-server';
import { loadConfig } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { createLogger } from '../core/logger.js';
import { connectTemporal } from '../core/temporal.js';
import { createApiApp } from './app.js';

const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'api' });
const db = createDb(config.databaseUrl);
const temporal = connectTemporal(config);
const server = serve({ fetch: createApiApp({ config, db, temporal, logger }).fetch, port: config.apiPort }, (info) =>
  logger.info({ port: info.port }, 'api listening'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(async () => {
      await Promise.allSettled([db.end(), temporal.close()]);
      process.exit(0);
    });
  });
}
