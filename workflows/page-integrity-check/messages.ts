/** The contract of the payment page tamper check and its schedule. Workflow-safe imports only. */

export type { PageIntegrityCheckResult } from '../../core/integrity/tamper-check.js';

/** One schedule per task queue, so test stacks on their own queues do not share one. */
export function pageIntegrityCheckScheduleId(taskQueue: string): string {
  return `page-integrity-check-${taskQueue}`;
}

/** What the Temporal UI shows of the schedule and of each run, in an operator's words. */
export const PAGE_INTEGRITY_CHECK_SUMMARY =
  'Payment page tamper check (PCI DSS 11.6.1): walks every payment page as a browser would and alerts operators when a script or security header differs from the approved inventory and baseline';
