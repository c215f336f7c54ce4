import { ScheduleAlreadyRunning, type Client, type ScheduleHandle, type ScheduleOptions, type ScheduleOverlapPolicy } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';

/** Creates a schedule every worker asks for at start: the first creates it, the others find it there. */
async function ensureSchedule(client: Client, options: ScheduleOptions): Promise<ScheduleHandle> {
  try {
    return await client.schedule.create(options);
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return client.schedule.getHandle(options.scheduleId);
    throw err;
  }
}

/** A workflow run on a task queue every `everyMs`, each run named `<scheduleId>-run` for operators to find. */
export interface IntervalWorkflowSchedule<W extends Workflow> {
  scheduleId: string;
  everyMs: number;
  overlap: ScheduleOverlapPolicy;
  workflowType: W;
  taskQueue: string;
  args: Parameters<W>;
  /** Plain words the Temporal UI shows: the schedule's note and each run's summary. */
  summary?: string;
}

/** ensureSchedule for the maintenance workflows every worker schedules (vault purge, domain recheck, saved-card removal). */
export function ensureIntervalWorkflowSchedule<W extends Workflow>(client: Client, schedule: IntervalWorkflowSchedule<W>): Promise<ScheduleHandle> {
  const { scheduleId, everyMs, overlap, workflowType, taskQueue, args, summary } = schedule;
  return ensureSchedule(client, {
    scheduleId,
    spec: { intervals: [{ every: everyMs }] },
    policies: { overlap },
    action: { type: 'startWorkflow', workflowType, workflowId: `${scheduleId}-run`, taskQueue, args, ...(summary ? { staticSummary: summary } : {}) },
    ...(summary ? { state: { note: summary } } : {}),
  });
}
