import { ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import { ensureIntervalWorkflowSchedule } from '../../core/temporal/ensure-schedule.js';
import type { Config } from '../../core/config.js';
import { cardVaultPurgeScheduleId } from './messages.js';
import { purgeCardVault } from './workflow.js';

/**
 * Creates the schedule that runs the card vault purge, visible in the Temporal UI under Schedules.
 * Every worker calls this at start: the first creates it, the others find it there.
 */
export async function ensureCardVaultPurgeSchedule(
  client: Client,
  config: Pick<Config, 'temporal' | 'sessionLifetimeMs' | 'cardVault'>,
): Promise<ScheduleHandle> {
  return ensureIntervalWorkflowSchedule(client, {
    scheduleId: cardVaultPurgeScheduleId(config.temporal.taskQueue),
    everyMs: config.cardVault.purgeEveryMs,
    overlap: ScheduleOverlapPolicy.SKIP,
    workflowType: purgeCardVault,
    taskQueue: config.temporal.taskQueue,
    args: [{ olderThanMs: config.sessionLifetimeMs + config.cardVault.purgeMarginMs }],
  });
}
