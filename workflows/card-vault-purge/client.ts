import { ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import { ensureSchedule } from '../../core/temporal/ensure-schedule.js';
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
  const scheduleId = cardVaultPurgeScheduleId(config.temporal.taskQueue);
  return ensureSchedule(client, {
    scheduleId,
    spec: { intervals: [{ every: config.cardVault.purgeEveryMs }] },
    policies: { overlap: ScheduleOverlapPolicy.SKIP },
    action: {
      type: 'startWorkflow',
      workflowType: purgeCardVault,
      workflowId: `${scheduleId}-run`,
      taskQueue: config.temporal.taskQueue,
      args: [{ olderThanMs: config.sessionLifetimeMs + config.cardVault.purgeMarginMs }],
    },
  });
}
