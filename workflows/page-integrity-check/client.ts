import { ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import { ensureIntervalWorkflowSchedule } from '../../core/temporal/ensure-schedule.js';
import type { Config } from '../../core/config.js';
import { PAGE_INTEGRITY_CHECK_SUMMARY, pageIntegrityCheckScheduleId } from './messages.js';
import { checkPageIntegrity } from './workflow.js';

/**
 * Creates the schedule of the payment page tamper check, visible in the Temporal UI under Schedules
 * with its summary, and runs it once now: a worker starts after each deploy, and a deploy is what most
 * often changes a page. Every worker calls this at start; the first creates the schedule.
 */
export async function ensurePageIntegrityCheckSchedule(client: Client, config: Pick<Config, 'temporal' | 'integrityCheck'>): Promise<ScheduleHandle> {
  const handle = await ensureIntervalWorkflowSchedule(client, {
    scheduleId: pageIntegrityCheckScheduleId(config.temporal.taskQueue),
    everyMs: config.integrityCheck.everyMs,
    overlap: ScheduleOverlapPolicy.SKIP,
    workflowType: checkPageIntegrity,
    taskQueue: config.temporal.taskQueue,
    args: [],
    summary: PAGE_INTEGRITY_CHECK_SUMMARY,
  });
  await handle.trigger(ScheduleOverlapPolicy.SKIP);
  return handle;
}
