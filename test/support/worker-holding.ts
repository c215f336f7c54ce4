import type { Client } from '@temporalio/client';
import type { RoleProcess } from './role-process.js';

/** A worker's identity as the TypeScript SDK names it by default: `<pid>@<host>`. */
const runsAs = (worker: RoleProcess, identity: string | null | undefined) => !!identity && identity.startsWith(`${worker.child.pid}@`);

/**
 * The worker that completed the workflow's last workflow task, if one of `workers`: it holds the
 * session in its cache, and Temporal sends the session's next task and queries to its sticky queue.
 * So it is also the worker sending a code: the send is a local activity in the task that took the
 * update (RELEASE_1_1, workflows/release-patches.ts).
 */
export async function workerHoldingSession(client: Client, workflowId: string, workers: RoleProcess[]): Promise<RoleProcess | undefined> {
  const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
  const identity = events
    ?.map((e) => e.workflowTaskCompletedEventAttributes?.identity)
    .filter(Boolean)
    .at(-1);
  return workers.find((w) => runsAs(w, identity));
}
