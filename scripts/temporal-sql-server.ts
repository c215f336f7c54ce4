import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../workflows/cart-session/messages.js';
import { freePort, freePortBetween, portIsFree } from './free-port.js';
import { ensureGoTool, type GoTool } from './go-tool.js';
import { superviseServer } from './server-process.js';
import { TEMPORAL_DYNAMIC_CONFIG } from './temporal-dynamic-config.js';

/**
 * Production's Temporal: `temporal-server` on PostgreSQL persistence, what docker-compose.yml runs
 * from the temporalio/server and temporalio/admin-tools images. Here it is built from the server's Go
 * module, at the version the Temporal CLI embeds (scripts/temporal-cli.ts), with its SQL schema tool
 * and schema files beside it, and set up the way the compose file sets it up.
 */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
const MODULE = 'go.temporal.io/server';
const SCHEMA = path.join('schema', 'postgresql', 'v12');

function goInstallInto(dir: string, target: string, binary: string, as: string): void {
  const built = spawnSync('go', ['install', `${MODULE}/${target}@v${TEMPORAL_SERVER_VERSION}`], { env: { ...process.env, GOBIN: dir }, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`go install ${MODULE}/${target} failed:\n${built.stderr.slice(-4000)}`);
  renameSync(path.join(dir, binary), path.join(dir, as));
}

export const TEMPORAL_SERVER: GoTool = {
  binary: 'temporal-server',
  title: 'The Temporal server with its SQL schema tool (needed to run on the production topology)',
  // `go install` names the binary after its folder (`server`); afterBuild renames it.
  module: `${MODULE}/cmd/server`,
  version: TEMPORAL_SERVER_VERSION,
  envVar: 'TEMPORAL_SERVER',
  alternatives: ['leave TEMPORAL_TOPOLOGY unset: the tests and the benchmark then run on the Temporal CLI’s dev server'],
  afterBuild(staging) {
    renameSync(path.join(staging, 'server'), path.join(staging, 'temporal-server'));
    goInstallInto(staging, 'cmd/tools/sql', 'sql', 'temporal-sql-tool');
    const modules = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
    cpSync(path.join(modules, `${MODULE}@v${TEMPORAL_SERVER_VERSION}`, SCHEMA), path.join(staging, SCHEMA), { recursive: true });
  },
};

/** Finds temporal-server (TEMPORAL_SERVER, PATH, the cache) or builds it, its schema tool and schema once. */
export const ensureTemporalServer = (log?: (line: string) => void): Promise<string> => ensureGoTool(TEMPORAL_SERVER, log);

export interface TemporalSqlServerOptions {
  /** The temporal-server binary; temporal-sql-tool and schema/ sit beside it (TEMPORAL_SERVER's build). */
  binary: string;
  /** The Temporal CLI, which registers the namespace and search attributes as the compose file does. */
  cli: string;
  /** A PostgreSQL role allowed to create databases: temporal and temporal_visibility are created there. */
  postgres: { host: string; port: number; user: string; password: string };
  /** Frontend gRPC port. */
  port: number;
  /**
   * Holds the generated config/ folder. Started again on the same folder (a restart), the server keeps
   * the internal ports it had, which its cluster membership in PostgreSQL still names.
   */
  dataDir: string;
  /** The two databases on that PostgreSQL: `temporal` and `temporal_visibility` unless said otherwise (a test's own pair). */
  databases?: { default: string; visibility: string };
  /** Dynamic config values, as the dev server's `--dynamic-config-value`. */
  dynamicConfig?: Record<string, number | string | boolean>;
  log?: (line: string) => void;
}

export interface TemporalSqlServer {
  address: string;
  pid: number | undefined;
  stop: () => Promise<void>;
}

/** The two databases a server is started on unless it is given a pair of its own. */
export const TEMPORAL_DATABASES = { default: 'temporal', visibility: 'temporal_visibility' } as const;

const databasesOf = (options: TemporalSqlServerOptions) => options.databases ?? TEMPORAL_DATABASES;

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { env, encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

/** The compose file's temporal-schema service: each database created, its schema set up and brought to the newest version. */
function setUpSchemas(options: TemporalSqlServerOptions): void {
  const tool = path.join(path.dirname(options.binary), 'temporal-sql-tool');
  const { host, port, user, password } = options.postgres;
  const env = { ...process.env, SQL_PASSWORD: password };
  const databases = databasesOf(options);
  for (const [database, schema] of [
    [databases.default, 'temporal'],
    [databases.visibility, 'visibility'],
  ] as const) {
    const base = ['--plugin', 'postgres12', '--ep', host, '-p', String(port), '-u', user, '--db', database];
    // Both may already have been done on this database: the update below is what must succeed.
    run(tool, [...base, 'create'], env);
    run(tool, [...base, 'setup-schema', '-v', '0.0'], env);
    const updated = run(tool, [...base, 'update-schema', '-d', path.join(path.dirname(options.binary), SCHEMA, schema, 'versioned')], env);
    if (!updated.ok) throw new Error(`temporal-sql-tool could not bring ${database} to the newest schema:\n${updated.output.slice(-4000)}`);
  }
}

/** The ports of the services besides the frontend's, and their membership ports. */
interface InternalPorts {
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/**
 * The internal ports of the last start on this data folder when they are still free, else new ones.
 * A restart must come back where it was: the previous process's membership rows stay in PostgreSQL
 * for a while, and the services route to the addresses there, a port nobody listens on any more
 * answering `connection refused` until those rows age out.
 */
async function internalPorts(file: string): Promise<InternalPorts> {
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as InternalPorts;
    if ((await Promise.all(Object.values(kept).map(portIsFree))).every(Boolean)) return kept;
  }
  const membership = () => freePortBetween(20_000, 32_768);
  return {
    frontendHttp: await freePort(),
    frontendMembership: await membership(),
    history: await freePort(),
    historyMembership: await membership(),
    matching: await freePort(),
    matchingMembership: await membership(),
    worker: await freePort(),
    workerMembership: await membership(),
  };
}

function serverConfig(options: TemporalSqlServerOptions, ports: InternalPorts): string {
  const { host, port, user, password } = options.postgres;
  const databases = databasesOf(options);
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "${host}:${port}"
        connectProtocol: tcp
        user: ${JSON.stringify(user)}
        password: ${JSON.stringify(password)}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (grpcPort: number, membershipPort: number) => `
    rpc:
      grpcPort: ${grpcPort}
      membershipPort: ${membershipPort}
      bindOnLocalHost: true`;
  return `log:
  stdout: true
  level: error
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:${store(databases.default, 20)}
    visibility:${store(databases.visibility, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:${service(options.port, ports.frontendMembership)}
      httpPort: ${ports.frontendHttp}
  history:${service(ports.history, ports.historyMembership)}
  matching:${service(ports.matching, ports.matchingMembership)}
  worker:${service(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${options.port}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${JSON.stringify(path.join(options.dataDir, 'config', 'dynamic.yaml'))}
  pollInterval: 10s
`;
}

const dynamicConfigYaml = (values: Record<string, number | string | boolean>) =>
  Object.entries(values)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n    constraints: {}\n`)
    .join('');

/** Whether the frontend answers for the default namespace a list query by one of our search attributes. */
async function servesSearchAttributes(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      await connection.workflowService.listWorkflowExecutions({ namespace: 'default', query: `CartStatus = 'paid'` });
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

/**
 * Sets up the schemas, starts temporal-server, registers the default namespace and the app's search
 * attributes with the Temporal CLI (docker-compose.yml's temporal-setup), and waits until it serves them.
 */
export async function startTemporalSqlServer(options: TemporalSqlServerOptions): Promise<TemporalSqlServer> {
  const log = options.log ?? (() => {});
  setUpSchemas(options);
  const configDir = path.join(options.dataDir, 'config');
  mkdirSync(configDir, { recursive: true });
  const portsFile = path.join(configDir, 'ports.json');
  const ports = await internalPorts(portsFile);
  writeFileSync(portsFile, JSON.stringify(ports));
  writeFileSync(path.join(configDir, 'production.yaml'), serverConfig(options, ports), { mode: 0o600 });
  writeFileSync(path.join(configDir, 'dynamic.yaml'), dynamicConfigYaml({ ...TEMPORAL_DYNAMIC_CONFIG, ...options.dynamicConfig }));

  const child = spawn(options.binary, ['--root', options.dataDir, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, stop } = superviseServer(child, log, 15_000);
  const exitMessage = () => (child.exitCode !== null ? `temporal-server exited with code ${child.exitCode}:\n${output()}` : undefined);

  const address = `127.0.0.1:${options.port}`;
  const cli = (args: string[]) => run(options.cli, ['operator', ...args, '--address', address, '--namespace', 'default']);
  /** The compose file's temporal-setup: the namespace if it is missing, then each search attribute (an existing one refuses, harmlessly). */
  const register = () => {
    if (!cli(['namespace', 'describe']).ok) {
      const created = cli(['namespace', 'create', '--retention', '1d']);
      if (!created.ok) return created.output;
    }
    const failures = SEARCH_ATTRIBUTE_DEFINITIONS.map((definition) => {
      const [name, type] = definition.split('=') as [string, string];
      return cli(['search-attribute', 'create', '--name', name, '--type', type]);
    }).filter((result) => !result.ok && !/already exists/i.test(result.output));
    return failures.map((f) => f.output).join('\n') || undefined;
  };
  try {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const exit = exitMessage();
      if (exit) throw new Error(exit);
      const problem = register();
      if (!problem && (await servesSearchAttributes(address))) break;
      if (Date.now() > deadline)
        throw new Error(`temporal-server on ${address} did not take the default namespace and our search attributes:\n${problem ?? ''}\n${output()}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, pid: child.pid, stop };
}
