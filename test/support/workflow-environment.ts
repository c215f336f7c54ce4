import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { ensureTemporalCli } from '../../scripts/temporal-cli.js';
import { bundleWorkflows } from '../../worker/create-worker.js';
import { searchAttributes } from '../../workflows/cart-session/messages.js';
import { ensureSdkRuntime, routeSdkLogs } from './sdk-runtime.js';

type Activities = Record<string, (...args: never[]) => unknown>;

export interface WorkflowEnvironment {
  env: TestWorkflowEnvironment;
  /** The task queue the file's worker polls. */
  taskQueue: string;
  /** The activities the worker runs until the test ends: the test's mocks, plain functions. */
  mockActivities(activities: Activities): void;
}

/**
 * The run's Temporal server under `npm test`, else a dev server of its own for the file
 * (`TestWorkflowEnvironment.createLocal`, on the CLI the project builds: scripts/temporal-cli.ts),
 * and one worker on a task queue of its own serving the project's workflows:
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
    await ensureSdkRuntime();
    routeSdkLogs(QUIET_SDK_LOGGER);
    const workflowBundle = providedBundle() ?? (await bundleWorkflows());
    const runServer = providedTemporalAddress();
    env = runServer
      ? await TestWorkflowEnvironment.createFromExistingServer({ address: runServer })
      : await TestWorkflowEnvironment.createLocal({
          server: {
            executable: { type: 'existing-path', path: await ensureTemporalCli() },
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
/** The run's Temporal server under `npm test` (test/setup/global-setup.ts); absent under `npm run test:workflows`. */
const providedTemporalAddress = () => inject('temporalAddress') as string | undefined;

/** The SDK logs every failed activity as a warning: the failures these tests provoke on purpose. */
const QUIET_SDK_LOGGER = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error };
