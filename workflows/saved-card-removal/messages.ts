/** The contract of the saved-card removal and its schedule. Workflow-safe imports only. */

export interface SavedCardRemovalInput {
  /** A saved card unused this long is removed (SAVED_CARDS_UNUSED_SECONDS: 13 months). */
  unusedMs: number;
}

/** One schedule per task queue, so test stacks on their own queues do not share one. */
export function savedCardRemovalScheduleId(taskQueue: string): string {
  return `saved-card-removal-${taskQueue}`;
}
