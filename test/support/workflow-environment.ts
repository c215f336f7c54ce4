import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { ensureTemporalCli } from '../../scripts/temporal-cli.js';
import { bundleWorkflows } from '../../worker/create-worker.js';
import { searchAttributes } from '../../workflows/cart-session/messages.js';

type Activities = Record<string, (...args: never[]) => unknown>;

export interface WorkflowEnvironment {
  env: TestWorkflowEnvironment;
  /** The task queue the file's worker polls. */
  taskQueue: string;
  /** The activities the worker runs until the test ends: the test's mocks, plain functions. */
  mockActivities(activities: Activities): void;
}

/**
 * A Temporal dev server of its own for one test file (`TestWorkflowEnvironment.createLocal`, on the
 * CLI the project builds: scripts/temporal-cli.ts) and one worker serving the project's workflows:
 * workflow logic alone, with mocked activities, against real Temporal semantics (updates, timers,
 * retries, local activities). No PostgreSQL, no API. The bundle is the one the run's global setup
 * built (test/setup/global-setup.ts or test/setup/workflow-bundle.ts), else built here.
 * `activityNames` are every activity the file's workflows may schedule: each runs the current test's
 * mock of that name, and one the test did not mock fails its activity.
 */
export function useWorkflowEnvironment(activityNames: readonly string[]): WorkflowEnvironment {
  const taskQueue = `workflow-test-${randomUUID()}`;
  let env: TestWorkflowEnvironment | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let current: Activities = {};
  const dispatching = Object.fromEntries(
    activityNames.map((name) => [
      name,
      (...args: never[]) => {
        const mock = current[name];
        if (!mock) throw new Error(`the test did not mock the activity ${name}`);
        return mock(...args);
      },
    ]),
  );

  beforeAll(async () => {
    installQuietRuntime();
    const [executable, workflowBundle] = await Promise.all([ensureTemporalCli(), providedBundle() ?? bundleWorkflows()]);
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: executable },
        searchAttributes: Object.values(searchAttributes),
        log: { format: 'pretty', level: 'error' },
      },
    });
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle, activities: dispatching });
    running = worker.run();
  });
  afterEach(() => {
    current = {};
  });
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    await env?.teardown();
  });

  return {
    get env() {
      if (!env) throw new Error('the workflow environment is not running yet (used outside a test or hook)');
      return env;
    },
    taskQueue,
    mockActivities(activities) {
      current = activities;
    },
  };
}

/** The bundle a global setup built; absent when a file runs under a config with neither. */
const providedBundle = () => inject('workflowBundle') as WorkflowBundleWithSourceMap | undefined;

/** The SDK logs every failed activity as a warning: the failures these tests provoke on purpose. */
function installQuietRuntime() {
  Runtime.install({ shutdownSignals: [], logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } });
}
