/**
 * How long Temporal takes to hand a session held by a worker that died without a goodbye (SIGKILL,
 * OOM, a lost machine) to a live worker, and so how long the checkout page must be willing to wait
 * for it (docs/decisions/worker-loss.md). Workflow-safe: constants only.
 */

/**
 * A task on a dead worker's sticky queue (a workflow task, or a query sent there because the
 * session's state is cached on that worker) moves to the shared queue after this long
 * (worker/create-worker.ts). A live worker slower than this to pick a task up costs a replay.
 */
export const STICKY_SCHEDULE_TO_START_MS = 2_000;

/**
 * A workflow task a dead worker had started is retried on another worker only once it times out,
 * and a query or update that arrives meanwhile waits for that retry. Temporal's default, set
 * explicitly when a session starts (workflows/cart-session/client.ts) so this figure is the one in
 * force: a shorter one would retry a loaded machine's slow tasks, so the page waits this out instead.
 */
export const WORKFLOW_TASK_TIMEOUT_MS = 10_000;

/**
 * An activity a customer waits on (sending a one-time code) heartbeats while it runs, so one that
 * died with its worker is retried after this long instead of after its start-to-close timeout.
 */
export const WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS = 4_000;

/** How often such an activity heartbeats; the SDK sends at most one per 80 % of the timeout. */
export const WAITED_ACTIVITY_HEARTBEAT_INTERVAL_MS = 1_000;

/** A send that failed is retried after this (workflows/cart-session/codes.ts). */
export const WAITED_ACTIVITY_RETRY_INTERVAL_MS = 1_000;

/** What the replacement worker needs once it has the task: the session's history replayed, on a busy machine. */
const REPLAY_MARGIN_MS = 3_000;

/**
 * The longest a query waits for a live worker after one died: it is sent to the dead worker's sticky
 * queue, or waits for the workflow task the dead worker had started; then the replay.
 */
export const QUERY_HANDOVER_MS = Math.max(STICKY_SCHEDULE_TO_START_MS, WORKFLOW_TASK_TIMEOUT_MS) + REPLAY_MARGIN_MS;

/**
 * The longest an update waits for a live worker after one died: as a query, or, when the worker died
 * sending its code, the send's heartbeat timeout and retry, then the dead worker's sticky queue for
 * the workflow task that completes the update; then the replay.
 */
export const UPDATE_HANDOVER_MS =
  Math.max(WORKFLOW_TASK_TIMEOUT_MS, WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS + WAITED_ACTIVITY_RETRY_INTERVAL_MS + STICKY_SCHEDULE_TO_START_MS) + REPLAY_MARGIN_MS;
