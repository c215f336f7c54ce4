import { ScheduleAlreadyRunning, type Client, type ScheduleHandle, type ScheduleOptions } from '@temporalio/client';

/** Creates a schedule every worker asks for at start: the first creates it, the others find it there. */
export async function ensureSchedule(client: Client, options: ScheduleOptions): Promise<ScheduleHandle> {
  try {
    return await client.schedule.create(options);
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return client.schedule.getHandle(options.scheduleId);
    throw err;
  }
}
