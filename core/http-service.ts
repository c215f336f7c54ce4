import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ConnectionLike } from '@temporalio/client';
import { loadConfigOrExit, type Config } from './config.js';
import { createDb, type Db } from './db/client.js';
import { surviveOrphanedConnectionErrors } from './db/connection-loss.js';
import { closeConnectionsLingering, type Linger } from './lingering-close.js';
import { createLogger, type Logger } from './logger.js';
import { connectTemporal, withEagerStarts, type Temporal } from './temporal/connection.js';

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface Listening {
  url: string;
  /** Stops accepting connections and resolves once the open ones have finished, or were cut after CLOSE_GRACE_MS. */
  close: () => Promise<void>;
}

/**
 * How long open requests get to finish once a server stops: longer than any answer waits (a repeated
 * capture waits 15 s, api/merchant/routes.ts). What is still open after it is a stream that never
 * finishes by itself (api/merchant/event-stream-routes.ts), whose client reconnects from its last id.
 */
export const CLOSE_GRACE_MS = 20_000;

/**
 * Serves `fetch` on `port` (0: any free one), resolving once it listens. A connection it closes
 * lingers (core/lingering-close.ts; LINGER unless told), so a client still sending a body reads the
 * answer that refused it.
 */
export function listen(fetch: FetchHandler, options: { port?: number; hostname?: string; linger?: Linger } = {}): Promise<Listening> {
  return new Promise((resolve) => {
    const server: Server = serve({ fetch, port: options.port ?? 0, ...(options.hostname ? { hostname: options.hostname } : {}) }, (info: AddressInfo) =>
      resolve({
        url: `http://${options.hostname ?? 'localhost'}:${info.port}`,
        close: () =>
          new Promise((done) => {
            const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
            server.close(() => {
              clearTimeout(cut);
              done();
            });
          }),
      }),
    ) as Server;
    closeConnectionsLingering(server, options.linger);
  });
}

export interface HttpServiceDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
}

/** A worker running inside an HTTP role, on the connection its eager starts go through (worker/in-process.ts). */
export interface InProcessWorker {
  connection: ConnectionLike;
  /** Lets its tasks in flight finish, then closes its connection. */
  stop(): Promise<void>;
}

/**
 * Runs one HTTP role (api, web) as its own process: config parsed once, its dependencies built and
 * handed to the app, and on SIGINT/SIGTERM the server drained before the connections close. With
 * TEMPORAL_EAGER_START, `inProcessWorker` is started before the server listens and stopped after it
 * has drained (no start can still want it), before the database its activities write to closes.
 */
export async function runHttpService(options: {
  name: string;
  port: (config: Config) => number;
  createApp: (deps: HttpServiceDeps) => { fetch: FetchHandler };
  inProcessWorker?: (deps: { config: Config; db: Db; logger: Logger }) => Promise<InProcessWorker>;
}): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger({ level: config.logLevel, name: options.name });
  surviveOrphanedConnectionErrors(logger);
  const db = createDb(config.databaseUrl);
  const worker = config.temporal.eagerStart && options.inProcessWorker ? await options.inProcessWorker({ config, db, logger }) : undefined;
  const temporal = worker ? withEagerStarts(connectTemporal(config), config, worker.connection) : connectTemporal(config);
  const server = await listen(options.createApp({ config, db, temporal, logger }).fetch, { port: options.port(config) });
  logger.info({ url: server.url, eagerStart: worker !== undefined }, `${options.name} listening`);
  const shutdown = async () => {
    await server.close();
    await worker?.stop().catch((err: unknown) => logger.error({ err }, 'the in-process cart worker did not stop cleanly'));
    await Promise.allSettled([db.end(), temporal.close()]);
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void shutdown());
  }
}
