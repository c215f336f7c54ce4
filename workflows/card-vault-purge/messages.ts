/** The contract of the card vault purge and its schedule. Workflow-safe imports only. */

export interface CardVaultPurgeInput {
  /** Cards stored longer ago than this are deleted: the session lifetime plus a margin, from server config. */
  olderThanMs: number;
}

/** One schedule per task queue, so test stacks on their own queues do not share one. */
export function cardVaultPurgeScheduleId(taskQueue: string): string {
  return `card-vault-purge-${taskQueue}`;
}
