import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { FAILURE_CONVERTER_PATH, temporalDataConverter } from '../core/temporal/codec.js';
import { STICKY_SCHEDULE_TO_START_MS } from '../core/temporal/worker-loss.js';
import { createActivities, type ActivityDeps } from './activities.js';
import { createActivityMetrics, type ActivityMetrics } from '../activities/metrics.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Summaries of every activity and timer for the Temporal UI, bundled with the workflows. */
export const WORKFLOW_INTERCEPTORS = [fileURLToPath(new URL('../workflows/operator-summaries.ts', import.meta.url))];
/**
 * Run in the sandbox once, before its globals freeze, and shared by every workflow of the worker: the
 * SDK's per-promise stack capture off (workflows/sandbox-stack-capture.ts), and the code check's digest
 * (core/checkout/otp/digest.ts), pure and stateless, whose hash library's set-up (every SHA-2
 * variant's tables) otherwise ran again for each workflow the worker creates (docs/decisions/session-cost.md).
 * The digest's own module, not the library: the bundler drops a bare import of a package that declares
 * no side effects.
 */
export const WORKFLOW_PRELOAD_MODULES = ['../workflows/sandbox-stack-capture.ts', '../core/checkout/otp/digest.ts'].map((module) =>
  fileURLToPath(new URL(module, import.meta.url)),
);

/**
 * Bundling takes seconds; tests build it once and hand it to every worker they start. The options are
 * for the bench, which measures the bundle with and without what they change (scripts/bench/sandbox-levers.ts).
 */
export function bundleWorkflows({
  preloadModules = WORKFLOW_PRELOAD_MODULES,
  workflowInterceptorModules = WORKFLOW_INTERCEPTORS,
} = {}): Promise<WorkflowBundleWithSourceMap> {
  // The failure converter runs inside the workflow sandbox too: it is part of the bundle.
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    workflowInterceptorModules,
    preloadModules,
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
  });
}

export async function createCartWorker(deps: {
  config: Config;
  db: Db;
  logger: Logger;
  otpSender?: ActivityDeps['otpSender'];
  paymentProcessor?: ActivityDeps['paymentProcessor'];
  postWebhook?: ActivityDeps['postWebhook'];
  fetchVerificationFile?: ActivityDeps['fetchVerificationFile'];
  resolveTxt?: ActivityDeps['resolveTxt'];
  connection: NativeConnection;
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** What its activities count; served by worker/metrics.ts. A worker nobody scrapes may leave it out. */
  metrics?: ActivityMetrics;
}): Promise<Worker> {
  const { config, connection } = deps;
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    // Same converter as every client: payloads and failure messages are encrypted in history (core/temporal/codec.ts).
    dataConverter: temporalDataConverter(config.keyring),
    ...(deps.workflowBundle
      ? { workflowBundle: deps.workflowBundle }
      : {
          workflowsPath: WORKFLOWS_PATH,
          interceptors: { workflowModules: WORKFLOW_INTERCEPTORS },
          bundlerOptions: { preloadModules: WORKFLOW_PRELOAD_MODULES },
        }),
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    isolateExecutionTimeout: config.worker.sandboxWatchdogMs,
    // A worker killed without a goodbye keeps its sessions on its sticky queue: Temporal moves their
    // tasks, and the page's state queries, to the other workers only after this long (the default is
    // 5 s). The page's deadlines are built on it (core/temporal/worker-loss.ts).
    stickyQueueScheduleToStartTimeout: STICKY_SCHEDULE_TO_START_MS,
    activities: createActivities({
      config: deps.config,
      db: deps.db,
      logger: deps.logger,
      otpSender: deps.otpSender,
      paymentProcessor: deps.paymentProcessor,
      postWebhook: deps.postWebhook,
      fetchVerificationFile: deps.fetchVerificationFile,
      resolveTxt: deps.resolveTxt,
      metrics: deps.metrics ?? createActivityMetrics(),
    }),
  });
}
