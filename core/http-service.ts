import { serve } from '@hono/node-server';
import { loadConfig, type Config } from './config.js';
import { createDb, type Db } from './db/client.js';
import { createLogger, type Logger } from './logger.js';
import { connectTemporal, type Temporal } from './temporal.js';

export interface HttpServiceDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
}

/**
 * Runs one HTTP role (api, web) as its own process: config parsed once, its dependencies built and
 * handed to the app, and on SIGINT/SIGTERM the server drained before the connections close.
 */
export function runHttpService(options: {
  name: string;
  port: (config: Config) => number;
  createApp: (deps: HttpServiceDeps) => { fetch: (request: Request) => Response | Promise<Response> };
}): void {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, name: options.name });
  const db = createDb(config.databaseUrl);
  const temporal = connectTemporal(config);
  const server = serve({ fetch: options.createApp({ config, db, temporal, logger }).fetch, port: options.port(config) }, (info) =>
    logger.info({ port: info.port }, `${options.name} listening`),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      server.close(async () => {
        await Promise.allSettled([db.end(), temporal.close()]);
        process.exit(0);
      });
    });
  }
}
