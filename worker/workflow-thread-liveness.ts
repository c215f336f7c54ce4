import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';

/** What the worker exits with when its workflow thread stalls: a supervisor restarts it (docs/runbook.md). */
export const WORKFLOW_THREAD_STALLED_EXIT_CODE = 70;

/** The SDK worker's count of workflow activations in flight (`Worker.numInFlightActivations$`). */
export interface InFlightActivations {
  subscribe(next: (inFlight: number) => void): { unsubscribe(): void };
}

export interface WorkflowThreadStall {
  inFlight: number;
  /** Since the last activation completed, or since the oldest in flight arrived. */
  stalledMs: number;
}

/**
 * The liveness answer without the sandbox watchdog (docs/decisions/session-cost.md): a workflow stuck
 * in a loop holds the worker's one workflow thread, so activations stay in flight, none completes
 * again, and the thread keeps a core busy. An activation is pure workflow code, milliseconds (its local
 * activities run outside it), so that, for `stallMs`, is a stall, never a slow task. Completions may
 * also stop while Temporal is unreachable (an activation's completion is reported to the server), but
 * the process then idles: without a quarter of a core used over the time, it is a wait, not a stall.
 */
export function watchWorkflowThread(
  inFlightActivations: InFlightActivations,
  options: {
    stallMs: number;
    onStall(stall: WorkflowThreadStall): void;
    now?: () => number;
    /** CPU the process has used, in ms, all threads. */
    cpuMs?: () => number;
  },
): { stop(): void } {
  const now = options.now ?? Date.now;
  const cpuMs = options.cpuMs ?? processCpuMs;
  const checkEveryMs = Math.min(1_000, options.stallMs / 4);
  let inFlight = 0;
  let progressAt = now();
  let checkedAt = progressAt;
  // The CPU reading is taken at the next check, not on each completion: this runs for every activation.
  let cpuAtProgress: number | undefined;
  const subscription = inFlightActivations.subscribe((next) => {
    // A completion lowers the count; the first arrival after an idle spell starts the clock.
    if (next < inFlight || inFlight === 0) {
      progressAt = now();
      cpuAtProgress = undefined;
    }
    inFlight = next;
  });
  const check = setInterval(() => {
    const at = now();
    // A check this late means the process was paused or its event loop blocked: completions could not
    // be seen either, so that time is no evidence of a stall.
    if (at - checkedAt > 2 * checkEveryMs) {
      progressAt = at;
      cpuAtProgress = undefined;
    }
    checkedAt = at;
    cpuAtProgress ??= cpuMs();
    const stalledMs = at - progressAt;
    if (inFlight === 0 || stalledMs < options.stallMs) return;
    if (cpuMs() - cpuAtProgress < stalledMs / 4) return;
    stop();
    options.onStall({ inFlight, stalledMs });
  }, checkEveryMs);
  check.unref();
  const stop = () => {
    clearInterval(check);
    subscription.unsubscribe();
  };
  return { stop };
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * For a worker process: a stalled workflow thread cannot be stopped or drained, so the process exits
 * at once, as a SIGKILL would, and Temporal moves its sessions to the other workers
 * (docs/decisions/worker-loss.md).
 */
export function exitWhenWorkflowThreadStalls(worker: { numInFlightActivations$: InFlightActivations }, deps: { config: Config; logger: Logger }) {
  return watchWorkflowThread(worker.numInFlightActivations$, {
    stallMs: deps.config.worker.stallExitMs,
    onStall(stall) {
      deps.logger.fatal(
        { ...stall, exitCode: WORKFLOW_THREAD_STALLED_EXIT_CODE },
        'workflow thread stalled: activations in flight and none completed; exiting so that another worker takes the sessions',
      );
      process.exit(WORKFLOW_THREAD_STALLED_EXIT_CODE);
    },
  });
}
