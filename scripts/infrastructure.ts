import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDb } from '../core/db/client.js';
import { migrate } from '../core/db/migrate.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { ensureTemporalCli } from './temporal-cli.js';
import { startTemporalDevServer } from './temporal-server.js';
import { ensureTemporalServer, startTemporalSqlServer, TEMPORAL_DATABASES } from './temporal-sql-server.js';

/**
 * Which Temporal: the CLI's dev server (SQLite, what `npm start` and the tests run by default) or
 * production's `temporal-server` on the same PostgreSQL (scripts/temporal-sql-server.ts).
 */
export const TEMPORAL_TOPOLOGIES = ['dev', 'server'] as const;
export type TemporalTopology = (typeof TEMPORAL_TOPOLOGIES)[number];

/** TEMPORAL_TOPOLOGY, read by the test setup: `server`, or the dev server by default. */
export function temporalTopologyFromEnv(value = process.env.TEMPORAL_TOPOLOGY): TemporalTopology {
  if (value === undefined || value === '') return 'dev';
  if ((TEMPORAL_TOPOLOGIES as readonly string[]).includes(value)) return value as TemporalTopology;
  throw new Error(`TEMPORAL_TOPOLOGY=${value}: use dev (the CLI’s dev server, the default) or server (temporal-server on PostgreSQL).`);
}

export interface Infrastructure {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl?: string;
  /** Our own PostgreSQL's postmaster (its backends are its children); undefined on DATABASE_URL. */
  postgresPid?: number;
  /** The Temporal server's process id when we started it (the benchmark reads its CPU and memory); it changes on a restart. */
  readonly temporalPid?: number;
  /**
   * temporal-server, when we started it: the process stopped and started again on the same databases
   * and configuration (the peak benchmark's fault); resolves once it serves again.
   */
  restartTemporal?: () => Promise<void>;
  /**
   * The Temporal server we started, stopped and started again on the same address with nothing in it:
   * the dev server in memory, or temporal-server on new databases in our own PostgreSQL (the
   * benchmark's comparisons that must not inherit each other's open sessions); resolves once it serves again.
   */
  freshTemporal?: () => Promise<void>;
  stop: () => Promise<void>;
}

export interface InfrastructureOptions {
  /** Holds `pg/`, `temporal.db` and the generated local credentials. */
  dataDir: string;
  postgresPort: number;
  /** PostgreSQL's max_connections, when its default (100) is too few for what runs on it. */
  postgresMaxConnections?: number;
  temporalPort: number;
  temporalUiPort?: number;
  /** Where the Temporal UI decodes payloads (the dashboard's /dashboard/codec). */
  temporalUiCodecEndpoint?: string;
  /** The UI's base path behind the dashboard (`/dashboard/temporal`). */
  temporalUiPublicPath?: string;
  /** Keep Temporal's state on disk across restarts (npm start) or not (tests). */
  persistentTemporal: boolean;
  /** The dev server unless said otherwise. */
  temporalTopology?: TemporalTopology;
  /** Dynamic config of the Temporal server we start (see TemporalDevServerOptions). */
  temporalDynamicConfig?: Record<string, number | string | boolean>;
  /** Use these instead of starting our own (DATABASE_URL / TEMPORAL_ADDRESS). */
  databaseUrl?: string;
  temporalAddress?: string;
  log: (line: string) => void;
}

/** Local credentials for the embedded servers, generated once per data folder and kept there. */
function localSecret(dataDir: string, name: string, make: () => string): string {
  const file = path.join(dataDir, 'local-secrets.json');
  const secrets = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  if (!secrets[name]) {
    secrets[name] = make();
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets[name];
}

export function localDataEncryptionKey(dataDir: string): string {
  return localSecret(dataDir, 'dataEncryptionKey', () => randomBytes(32).toString('base64'));
}

export function localOperatorToken(dataDir: string): string {
  return localSecret(dataDir, 'operatorToken', () => randomBytes(24).toString('base64url'));
}

export function localMetricsToken(dataDir: string): string {
  return localSecret(dataDir, 'metricsToken', () => randomBytes(24).toString('base64url'));
}

/** A server that `start` starts, and starts again on `restart`, with `whileDown` run between the stop and the start. */
async function restartable<S extends { stop: () => Promise<void> }>(start: () => Promise<S>, stops: Array<() => Promise<void>>) {
  let current = await start();
  stops.push(() => current.stop());
  return {
    get current() {
      return current;
    },
    async restart(whileDown?: () => Promise<void>) {
      await current.stop();
      await whileDown?.();
      current = await start();
    },
  };
}

/**
 * PostgreSQL (migrated) and a Temporal server, real ones: the dev server starts beside PostgreSQL,
 * temporal-server once PostgreSQL is up (its databases live there). Whichever is given by
 * URL/address is used as it is. `stop()` leaves no process behind.
 */
export async function startInfrastructure(options: InfrastructureOptions): Promise<Infrastructure> {
  mkdirSync(options.dataDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    await Promise.allSettled(stops.reverse().map((s) => s()));
  };
  try {
    const postgres = (async (): Promise<{ url: string; pid?: number }> => {
      if (options.databaseUrl) return { url: options.databaseUrl };
      options.log(`Starting PostgreSQL on 127.0.0.1:${options.postgresPort} (data in ${path.join(options.dataDir, 'pg')})…`);
      const pg = await startEmbeddedPostgres({
        dataDir: path.join(options.dataDir, 'pg'),
        port: options.postgresPort,
        ...(options.postgresMaxConnections ? { maxConnections: options.postgresMaxConnections } : {}),
        password: localSecret(options.dataDir, 'postgresPassword', () => randomBytes(18).toString('base64url')),
      });
      stops.push(pg.stop);
      return { url: pg.url, pid: pg.pid };
    })();
    const startTemporal = async () => {
      if (options.temporalAddress) return { address: options.temporalAddress, uiUrl: undefined, pid: () => undefined };
      const cli = await ensureTemporalCli(options.log);
      if (options.temporalTopology === 'server') {
        const binary = await ensureTemporalServer(options.log);
        const url = new URL((await postgres).url);
        options.log(`Starting temporal-server on PostgreSQL, frontend on 127.0.0.1:${options.temporalPort}…`);
        const start = () =>
          startTemporalSqlServer({
            binary,
            cli,
            postgres: {
              host: url.hostname,
              port: Number(url.port || 5432),
              user: decodeURIComponent(url.username),
              password: decodeURIComponent(url.password),
            },
            port: options.temporalPort,
            dataDir: path.join(options.dataDir, 'temporal-server'),
            dynamicConfig: options.temporalDynamicConfig,
          });
        const server = await restartable(start, stops);
        // Its databases dropped while it is down, so it starts on new, empty ones (our own PostgreSQL only).
        const dropDatabases = async () => {
          const admin = createDb(url.href, { max: 1 });
          try {
            for (const database of Object.values(TEMPORAL_DATABASES)) await admin.unsafe(`drop database if exists ${database} with (force)`);
          } finally {
            await admin.end();
          }
        };
        return {
          address: server.current.address,
          uiUrl: undefined,
          pid: () => server.current.pid,
          restart: () => server.restart(),
          fresh: options.databaseUrl ? undefined : () => server.restart(dropDatabases),
        };
      }
      options.log(`Starting the Temporal dev server on 127.0.0.1:${options.temporalPort}…`);
      const start = () =>
        startTemporalDevServer({
          cli,
          port: options.temporalPort,
          uiPort: options.temporalUiPort,
          uiCodecEndpoint: options.temporalUiCodecEndpoint,
          uiPublicPath: options.temporalUiPublicPath,
          dbFile: options.persistentTemporal ? path.join(options.dataDir, 'temporal.db') : undefined,
          fastUnsafeStorage: !options.persistentTemporal,
          dynamicConfig: options.temporalDynamicConfig,
        });
      const server = await restartable(start, stops);
      return {
        address: server.current.address,
        uiUrl: server.current.uiUrl,
        pid: () => server.current.process.pid,
        // In memory, it comes back empty.
        fresh: options.persistentTemporal ? undefined : () => server.restart(),
      };
    };
    // allSettled, not all: when one fails, the other must finish starting before stop() can reach it.
    const [pgResult, temporalResult] = await Promise.allSettled([postgres, startTemporal()]);
    if (pgResult.status === 'rejected') throw pgResult.reason;
    if (temporalResult.status === 'rejected') throw temporalResult.reason;
    const { url: databaseUrl, pid: postgresPid } = pgResult.value;
    const temporal = temporalResult.value;
    const db = createDb(databaseUrl, { max: 1 });
    try {
      const applied = await migrate(db);
      if (applied.length) options.log(`Applied migrations: ${applied.join(', ')}`);
    } finally {
      await db.end();
    }
    return {
      databaseUrl,
      temporalAddress: temporal.address,
      temporalUiUrl: temporal.uiUrl,
      ...(postgresPid ? { postgresPid } : {}),
      get temporalPid() {
        return temporal.pid();
      },
      ...('restart' in temporal ? { restartTemporal: temporal.restart } : {}),
      ...('fresh' in temporal && temporal.fresh ? { freshTemporal: temporal.fresh } : {}),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
