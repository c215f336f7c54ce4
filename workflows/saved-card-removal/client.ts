import { ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import { ensureIntervalWorkflowSchedule } from '../../core/temporal/ensure-schedule.js';
import type { Config } from '../../core/config.js';
import { savedCardRemovalScheduleId } from './messages.js';
import { removeSavedCards } from './workflow.js';

/**
 * Creates the schedule that removes stale saved cards and detaches removed ones, visible in the
 * Temporal UI under Schedules. Every worker calls this at start: the first creates it, the others find it there.
 */
export async function ensureSavedCardRemovalSchedule(client: Client, config: Pick<Config, 'temporal' | 'savedCards'>): Promise<ScheduleHandle> {
  return ensureIntervalWorkflowSchedule(client, {
    scheduleId: savedCardRemovalScheduleId(config.temporal.taskQueue),
    everyMs: config.savedCards.removalEveryMs,
    overlap: ScheduleOverlapPolicy.BUFFER_ONE,
    workflowType: removeSavedCards,
    taskQueue: config.temporal.taskQueue,
    args: [{ unusedMs: config.savedCards.unusedMs }],
  });
}

/**
 * After a customer's removal or an operator's erase: a run now, so the processor detaches the cards
 * within seconds (one run already under way is followed by one more). The cards are no longer offered
 * either way; a run that cannot be started now (Temporal down, no worker created the schedule yet)
 * leaves them to the next scheduled one: the error is the answer, for the caller to log.
 */
export async function startSavedCardRemoval(client: Client, config: Pick<Config, 'temporal'>): Promise<unknown> {
  try {
    await client.schedule.getHandle(savedCardRemovalScheduleId(config.temporal.taskQueue)).trigger(ScheduleOverlapPolicy.BUFFER_ONE);
    return undefined;
  } catch (err) {
    return err;
  }
}
