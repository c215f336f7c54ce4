import { asyncLocalStorage } from '@temporalio/activity';
import { WAITED_ACTIVITY_HEARTBEAT_INTERVAL_MS } from '../../core/temporal/worker-loss.js';

/**
 * Runs `work` while heartbeating, for an activity scheduled with a heartbeat timeout: alive, it
 * may take its whole start-to-close timeout; dead with its worker, Temporal retries it elsewhere
 * once the heartbeats stop. Outside an activity (a unit test calling it directly), or in a local
 * one, it just runs.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = WAITED_ACTIVITY_HEARTBEAT_INTERVAL_MS): Promise<T> {
  const context = asyncLocalStorage.getStore();
  // A local activity has no heartbeat: its workflow task's timeout covers a worker's death. One scheduled
  // without a heartbeat timeout (a charge of a session from before 1.3) would only cost Temporal writes.
  if (!context || context.info.isLocal || !context.info.heartbeatTimeoutMs) return work();
  // No heartbeat at the start: the timeout counts from the start too, and a send done within the
  // first interval (nearly all) then costs Temporal no heartbeat at all.
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
