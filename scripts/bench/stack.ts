import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { freePort } from '../free-port.js';
import { startInfrastructure, type Infrastructure, type TemporalTopology } from '../infrastructure.js';
import type { ProcessGroup } from './cpu.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One role of the stack as its own process, so its memory is its own (api/main.ts, web/main.ts, worker/main.ts). */
export interface Role {
  name: string;
  /** The current process's: a role started again has a new one. */
  readonly pid: number;
  url?: string;
  stop: () => Promise<void>;
  /** SIGKILL, as a crash: nothing is finished or handed over. Resolves once the process is gone. */
  kill: () => Promise<void>;
}

/** Resident memory of a process from /proc, in MiB: now and its peak since it started (VmHWM). */
export function rssMiB(pid: number | undefined): { now: number; peak: number } | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { now: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Samples the RSS of some processes every `everyMs` and keeps each one's highest. */
export function rssSampler(pids: Record<string, number | undefined>, everyMs = 500) {
  const peaks: Record<string, number> = {};
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const rss = rssMiB(pid);
      if (rss) peaks[name] = Math.max(peaks[name] ?? 0, rss.now);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop(): Record<string, number> {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

export interface BenchStack {
  databaseUrl: string;
  temporalAddress: string;
  /** Read at each measurement: a restart gives the server a new process. */
  readonly temporalPid?: number;
  /** The postmaster of our own PostgreSQL (its backends are its children); undefined on DATABASE_URL. */
  postgresPid?: number;
  /** What every role gets: the same keys, so the bench process can read what they seal. */
  baseEnv: Record<string, string>;
  /** temporal-server stopped and started again on its databases (our own, on the server topology only). */
  restartTemporal?: () => Promise<void>;
  /**
   * The Temporal server (ours) started again empty, once the worker polls it again: a comparison's side
   * then runs on a server the other side left nothing open on (./start-pairs.ts).
   */
  freshTemporal?: (taskQueue: string) => Promise<void>;
  /** Starts `entry` of the checkout at `root` (this one by default) as a child process. */
  startRole: (name: string, entry: string, env: Record<string, string>, ready: ReadyCheck, root?: string) => Promise<Role>;
  stop: () => Promise<void>;
}

type ReadyCheck = { http: string } | { taskQueue: string };

/**
 * `connection` is the stack's own, kept open until the stack stops. A run on temporal-server ended on
 * an SDK retry timer throwing "Channel has been shut down"; a connection per check, closed as soon as
 * its role was ready, was the one the bench closed mid-run, and the likely channel.
 */
async function waitUntilReady(check: ReadyCheck, connection: () => Promise<Connection>, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}:\n${output()}`);
    try {
      if ('http' in check) {
        await (await fetch(check.http)).arrayBuffer();
        return;
      }
      if (await isPolled(check.taskQueue, connection)) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`not ready after 180 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function isPolled(taskQueue: string, connection: () => Promise<Connection>): Promise<boolean> {
  const { workflowService } = await connection();
  const described = await workflowService.describeTaskQueue({
    namespace: 'default',
    taskQueue: { name: taskQueue },
    taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (described.pollers ?? []).length > 0;
}

/**
 * After the server came back: its workflow tasks have a worker again once one polls for them.
 * `tend` runs before each look, to start again a role that exited meanwhile.
 */
async function waitUntilPolled(taskQueue: string, connection: () => Promise<Connection>, tend: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await tend();
    try {
      if (await isPolled(taskQueue, connection)) return;
    } catch {
      // The server is still coming up, or the connection is reconnecting.
    }
    if (Date.now() > deadline) throw new Error(`no worker polls ${taskQueue} 60 s after the Temporal server started again`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The stack the benchmark measures: PostgreSQL and a Temporal server of the given topology (ours on
 * free ports, or DATABASE_URL / TEMPORAL_ADDRESS when given), then each role as a child process started on demand.
 */
export async function startBenchStack(
  log: (line: string) => void,
  topology: TemporalTopology = 'dev',
  options: { postgresMaxConnections?: number } = {},
): Promise<BenchStack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-bench-'));
  chmodSync(dataDir, 0o755);
  let infrastructure: Infrastructure;
  try {
    infrastructure = await startInfrastructure({
      dataDir,
      postgresPort: await freePort(),
      ...(options.postgresMaxConnections ? { postgresMaxConnections: options.postgresMaxConnections } : {}),
      temporalPort: await freePort(),
      persistentTemporal: false,
      temporalTopology: topology,
      databaseUrl: process.env.DATABASE_URL,
      temporalAddress: process.env.TEMPORAL_ADDRESS,
      log,
    });
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  /**
   * The running roles, each with its way back after a Temporal server started again empty
   * (./start-pairs.ts): its process started again if it had exited, answering what the exited one
   * printed last; nothing otherwise.
   */
  const roles = new Map<Role, () => Promise<string | undefined>>();
  let readinessConnection: Promise<Connection> | undefined;
  // A connect that failed (a server too slow to answer in time) is not kept: the next check connects again.
  const connection = () =>
    (readinessConnection ??= Connection.connect({ address: infrastructure.temporalAddress }).catch((err: unknown) => {
      readinessConnection = undefined;
      throw err;
    }));
  const baseEnv: Record<string, string> = {
    CHECKOUT_ENV: 'sandbox',
    DATABASE_URL: infrastructure.databaseUrl,
    TEMPORAL_ADDRESS: infrastructure.temporalAddress,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    // Its verifying receiver listens on this machine's loopback.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    // The benchmark is one client address sending far more than a merchant's share.
    RATE_LIMIT_PER_CLIENT: '100000000',
    RATE_LIMIT_PER_PLATFORM_CLIENT: '100000000',
    RATE_LIMIT_PER_PLATFORM: '100000000',
    RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: '100000000',
    OTP_SENDS_PER_CLIENT: '100000000',
  };

  /** A role's process: `entry` of the checkout at `root`, what it printed last, and its exit. */
  function spawnRole(entry: string, env: Record<string, string>, root: string, profile: string[]) {
    const child = spawn(process.execPath, [...profile, '--import', 'tsx', entry], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...baseEnv, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return { child, exited, output: () => output, running: () => child.exitCode === null && child.signalCode === null };
  }

  async function startRole(name: string, entry: string, env: Record<string, string>, ready: ReadyCheck, root = ROOT): Promise<Role> {
    // BENCH_CPU_PROF=<role>: that role writes a V8 CPU profile when it stops, to see where its time goes.
    const profile = process.env.BENCH_CPU_PROF === name ? ['--cpu-prof', `--cpu-prof-dir=${path.join(tmpdir(), 'hosted-checkout-bench-profiles')}`] : [];
    let current = spawnRole(entry, env, root, profile);
    const role: Role = {
      name,
      get pid() {
        return current.child.pid!;
      },
      url: 'http' in ready ? new URL(ready.http).origin : undefined,
      async stop() {
        roles.delete(role);
        if (!current.running()) return;
        current.child.kill('SIGTERM');
        const timer = setTimeout(() => current.child.kill('SIGKILL'), 15_000);
        await current.exited;
        clearTimeout(timer);
      },
      async kill() {
        roles.delete(role);
        if (!current.running()) return;
        current.child.kill('SIGKILL');
        await current.exited;
      },
    };
    const untilReady = async () => {
      try {
        await waitUntilReady(ready, connection, current.child, current.output);
      } catch (err) {
        await role.stop();
        throw new Error(`${name}: ${(err as Error).message}`);
      }
    };
    roles.set(role, async () => {
      if (current.running()) return undefined;
      const last = current.output();
      current = spawnRole(entry, env, root, profile);
      await untilReady();
      return last;
    });
    await untilReady();
    return role;
  }

  const { freshTemporal } = infrastructure;
  return {
    databaseUrl: infrastructure.databaseUrl,
    temporalAddress: infrastructure.temporalAddress,
    get temporalPid() {
      return infrastructure.temporalPid;
    },
    postgresPid: infrastructure.postgresPid,
    baseEnv,
    startRole,
    ...(infrastructure.restartTemporal ? { restartTemporal: infrastructure.restartTemporal } : {}),
    ...(freshTemporal
      ? {
          async freshTemporal(taskQueue: string) {
            await freshTemporal();
            // A worker that polls before temporal-server has its namespace again is told it does not
            // exist, which the SDK's core takes as fatal (the likely end of a worker in one run): such a
            // role is started again, and what it printed is logged.
            await waitUntilPolled(taskQueue, connection, async () => {
              for (const [role, startIfExited] of roles) {
                const printed = await startIfExited();
                if (printed !== undefined) log(`${role.name} exited while the Temporal server started again; started again. It printed:\n${printed}`);
              }
            });
          },
        }
      : {}),
    async stop() {
      await Promise.allSettled([...roles.keys()].map((r) => r.stop()));
      await readinessConnection?.then(
        (c) => c.close(),
        () => {},
      );
      await infrastructure.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The three roles on their own task queue, as docker-compose.yml runs them. */
export async function startRoles(stack: BenchStack, options: { taskQueue: string; env?: Record<string, string>; web?: boolean; root?: string }) {
  const [apiPort, webPort, metricsPort, sdkMetricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const env = {
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    // Each worker's /metrics and the SDK's exporter on ports of its own, beside any `npm start`.
    WORKER_METRICS_PORT: String(metricsPort),
    TEMPORAL_SDK_METRICS_ADDRESS: `127.0.0.1:${sdkMetricsPort}`,
    API_PORT: String(apiPort),
    WEB_PORT: String(webPort),
    API_BASE_URL: `http://127.0.0.1:${apiPort}`,
    CHECKOUT_BASE_URL: `http://127.0.0.1:${webPort}`,
    // These roles' measurements drive the API to saturation on purpose, create-cart's against the raw
    // start first: a shed request would count as neither served nor as the stack's cost. The peak run
    // (./peak.ts, roles of its own) keeps shedding on and reports what it shed.
    ADMISSION_SHEDDING: 'off',
    ...options.env,
  };
  const [worker, api, web] = await Promise.all([
    stack.startRole('worker', 'worker/main.ts', env, { taskQueue: options.taskQueue }, options.root),
    stack.startRole('api', 'api/main.ts', env, { http: `http://127.0.0.1:${apiPort}/healthz` }, options.root),
    options.web === false ? undefined : stack.startRole('web', 'web/main.ts', env, { http: `http://127.0.0.1:${webPort}/` }, options.root),
  ]);
  return {
    worker,
    api,
    web,
    env,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    webUrl: `http://127.0.0.1:${webPort}`,
    async stop() {
      await Promise.allSettled([api.stop(), web?.stop()]);
      await worker.stop();
    },
  };
}

export type Roles = Awaited<ReturnType<typeof startRoles>>;

/** The processes whose CPU a measurement accounts for (scripts/bench/cpu.ts). */
export function processGroups(stack: BenchStack, roles: Pick<Roles, 'worker' | 'api' | 'web'>): Record<string, ProcessGroup> {
  return {
    temporal: { pid: stack.temporalPid },
    postgres: { pid: stack.postgresPid, withChildren: true },
    worker: { pid: roles.worker.pid },
    api: { pid: roles.api.pid },
    ...(roles.web ? { web: { pid: roles.web.pid } } : {}),
  };
}
