import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WORKFLOW_THREAD_STALLED_EXIT_CODE } from '../../worker/workflow-thread-liveness.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The liveness answer that lets the sandbox watchdog be off (docs/decisions/session-cost.md): a worker
 * process whose workflow thread a workflow holds in a loop exits for its supervisor to restart it.
 */
describe('a worker whose workflow thread a workflow holds in a loop', () => {
  let connection: Connection;
  let client: Client;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await connection?.close();
  });

  async function startStallingWorker(taskQueue: string, env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/stalling-worker.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        CHECKOUT_ENV: 'sandbox',
        DATABASE_URL: 'postgres://unused',
        DATA_ENCRYPTION_KEY: inject('dataEncryptionKey'),
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_TASK_QUEUE: taskQueue,
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor(() => (output.includes('worker polling') ? true : undefined), { what: 'the stalling worker to poll', timeoutMs: 60_000 });
    return { exited, output: () => output, alive: () => child.exitCode === null && child.signalCode === null };
  }

  const startSpinning = (taskQueue: string) =>
    client.workflow.start('spinForever', { taskQueue, workflowId: `spin-${randomUUID()}`, workflowTaskTimeout: '60 seconds' });

  it('exits with its stall code and a fatal line, the watchdog off as by default', { timeout: 90_000 }, async () => {
    const taskQueue = `stall-${randomUUID()}`;
    const worker = await startStallingWorker(taskQueue, { WORKER_STALL_EXIT_SECONDS: '2' });
    const started = Date.now();
    const handle = await startSpinning(taskQueue);
    expect(await worker.exited).toBe(WORKFLOW_THREAD_STALLED_EXIT_CODE);
    const tookMs = Date.now() - started;
    const fatal = worker
      .output()
      .split('\n')
      .filter((line) => line.includes('"level":60'))
      .map((line) => JSON.parse(line) as { msg: string; inFlight: number; stalledMs: number });
    expect(fatal).toEqual([expect.objectContaining({ inFlight: 1, msg: expect.stringContaining('workflow thread stalled') })]);
    expect(fatal[0]!.stalledMs).toBeGreaterThanOrEqual(2_000);
    expect(tookMs).toBeLessThan(15_000);
    await handle.terminate('test over');
  });

  it('stays up with the watchdog on: the stuck workflow task fails each time instead', { timeout: 90_000 }, async () => {
    const taskQueue = `stall-${randomUUID()}`;
    const worker = await startStallingWorker(taskQueue, { WORKER_SANDBOX_WATCHDOG_SECONDS: '1', WORKER_STALL_EXIT_SECONDS: '3' });
    const handle = await startSpinning(taskQueue);
    const failedTasks = async () => ((await handle.fetchHistory()).events ?? []).filter((event) => event.workflowTaskFailedEventAttributes).length;
    await waitFor(async () => ((await failedTasks()) >= 1 ? true : undefined), { what: 'a failed workflow task', timeoutMs: 30_000 });
    // Twice the stall time, each attempt stopped by the watchdog after 1 s.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(worker.alive()).toBe(true);
    await handle.terminate('test over');
  });
});
