import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../scripts/free-port.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The production entry of each role, and the line its logger writes once it takes work. */
const ROLES = {
  api: { entry: 'api/main.ts', ready: 'api listening', portVariable: 'API_PORT' },
  web: { entry: 'web/main.ts', ready: 'checkout page listening', portVariable: 'WEB_PORT' },
  worker: { entry: 'worker/main.ts', ready: 'worker polling', portVariable: undefined },
} as const;

export type Role = keyof typeof ROLES;

export interface RoleProcess {
  role: Role;
  label: string;
  /** The base URL of an api or web process. */
  url: string;
  logFile: string;
  child: ChildProcess;
  /** Sends `signal` and resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * One role as its own operating-system process, started the way a deployment starts it (`node
 * --import tsx <role>/main.ts`, configured by environment only), so that a test can SIGKILL it.
 * Its JSON log lines go to `<logDir>/<label>.log`, which the leak scan reads afterwards.
 */
export async function startRole(options: {
  role: Role;
  label: string;
  env: Record<string, string>;
  logDir: string;
  /** Another entry for the same role: a test-only worker wired to a test processor. */
  entry?: string;
  timeoutMs?: number;
}): Promise<RoleProcess> {
  const spec = ROLES[options.role];
  const port = spec.portVariable ? await freePort() : 0;
  mkdirSync(options.logDir, { recursive: true });
  const logFile = path.join(options.logDir, `${options.label}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, ['--import', 'tsx', options.entry ?? spec.entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'info',
      ...options.env,
      ...(spec.portVariable ? { [spec.portVariable]: String(port) } : {}),
      // Several workers run at once: each serves its /metrics, and the SDK's exporter, on ports of its own.
      ...(options.role === 'worker' ? { WORKER_METRICS_PORT: String(await freePort()), TEMPORAL_SDK_METRICS_ADDRESS: `127.0.0.1:${await freePort()}` } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let seen = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.label} did not start within ${options.timeoutMs ?? 120_000} ms:\n${seen.slice(-2000)}`)),
      options.timeoutMs ?? 120_000,
    );
    const watch = (chunk: Buffer) => {
      log.write(chunk);
      if (seen.length < 20_000) seen += chunk.toString();
      if (seen.includes(spec.ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${options.label} exited before it was ready (${child.exitCode ?? child.signalCode}):\n${seen.slice(-2000)}`));
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    // A graceful stop that takes longer than this is not what a test waits for.
    const escalation = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(escalation);
    await new Promise<void>((resolve) => log.end(() => resolve()));
  };
  try {
    await ready;
  } catch (error) {
    await stop('SIGKILL');
    throw error;
  }
  return { role: options.role, label: options.label, url: `http://127.0.0.1:${port}`, logFile, child, stop };
}
