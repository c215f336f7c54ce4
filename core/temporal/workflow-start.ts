import { WorkflowNotFoundError } from '@temporalio/common';
import type { Logger } from '../logger.js';
import { withDeadline, type Temporal } from './connection.js';

/** Bounds the whole start call, connection included: a Temporal that is down must fail the request in seconds, not hold it open. */
const START_DEADLINE_MS = 3_000;
const TERMINATE_DEADLINE_MS = 2_000;
/** A start cancelled by its deadline may still land: its workflow is looked for this many times, a second apart. */
const ORPHAN_LOOKUPS = 10;
const ORPHAN_LOOKUP_INTERVAL_MS = 1_000;
/** A start whose outcome is unknown: its workflow is looked for this many times, half a second apart. */
const STARTED_LOOKUPS = 3;
const STARTED_LOOKUP_INTERVAL_MS = 500;

export type StartUnderDeadline = <S>(start: () => Promise<S>) => Promise<S>;

/**
 * Runs `work`, one step of which starts the workflow `orphan.workflowId` through the `start` it is
 * handed, under a deadline. When `work` fails once that start was sent (the start itself, or what had
 * to commit with it), the workflow may exist without what it was started for: it is terminated in the
 * background, best effort, and looked for again while a start cancelled by its deadline may still
 * land (test/reliability/postgres-restart.test.ts found sessions left without a row otherwise).
 * Used by create-cart (application/carts/create-cart-session.ts) and the refund request (core/orders/request-refund.ts).
 */
export async function startOrTerminateOrphan<T>(
  deps: { temporal: Temporal; logger?: Logger },
  orphan: {
    workflowId: string;
    reason: string;
    /**
     * Whether what the workflow belongs to is really missing, asked before terminating it: a failure
     * can hide a commit that landed (its acknowledgement lost), and such a workflow must be kept.
     * Without it, every failure after the start terminates the workflow.
     */
    stillOrphaned?: () => Promise<boolean>;
  },
  work: (start: StartUnderDeadline) => Promise<T>,
): Promise<T> {
  let sent = false;
  try {
    return await work((start) => {
      sent = true;
      return withDeadline(deps.temporal, START_DEADLINE_MS, start);
    });
  } catch (err) {
    if (sent) void terminateOrphan(deps, orphan, err);
    throw err;
  }
}

/**
 * Whether the workflow `workflowId` exists, after a start whose outcome is unknown (its deadline struck,
 * or its answer was lost, although the server may have accepted it). Looked for a few times while a
 * start still in flight may land; false when it cannot be found, Temporal's answer included.
 */
export async function workflowStarted(deps: { temporal: Temporal }, workflowId: string): Promise<boolean> {
  for (let attempt = 1; attempt <= STARTED_LOOKUPS; attempt++) {
    try {
      await withDeadline(deps.temporal, TERMINATE_DEADLINE_MS, () => deps.temporal.client.workflow.getHandle(workflowId).describe());
      return true;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) return false;
    }
    if (attempt < STARTED_LOOKUPS) await new Promise((resolve) => setTimeout(resolve, STARTED_LOOKUP_INTERVAL_MS));
  }
  return false;
}

async function terminateOrphan(
  deps: { temporal: Temporal; logger?: Logger },
  orphan: { workflowId: string; reason: string; stillOrphaned?: () => Promise<boolean> },
  cause: unknown,
): Promise<void> {
  const { workflowId, reason } = orphan;
  if (orphan.stillOrphaned) {
    const orphaned = await orphan.stillOrphaned().catch((err: unknown) => {
      deps.logger?.warn({ workflowId, err, cause }, 'kept a workflow whose start may have committed: could not tell');
      return false;
    });
    if (!orphaned) {
      deps.logger?.warn({ workflowId, err: cause }, 'kept a workflow whose start committed although its acknowledgement was lost');
      return;
    }
  }
  for (let attempt = 1; attempt <= ORPHAN_LOOKUPS; attempt++) {
    try {
      await withDeadline(deps.temporal, TERMINATE_DEADLINE_MS, () => deps.temporal.client.workflow.getHandle(workflowId).terminate(reason));
      deps.logger?.warn({ workflowId, reason, err: cause }, 'terminated a workflow whose start did not commit');
      return;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) && attempt === ORPHAN_LOOKUPS) {
        deps.logger?.error({ workflowId, reason, err, cause }, 'could not terminate a workflow whose start did not commit');
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, ORPHAN_LOOKUP_INTERVAL_MS));
  }
}
