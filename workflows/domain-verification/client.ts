import { ScheduleOverlapPolicy, WorkflowIdConflictPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import { ensureIntervalWorkflowSchedule } from '../../core/temporal/ensure-schedule.js';
import type { Config } from '../../core/config.js';
import { DOMAIN_RECHECK_EVERY_MS, domainRecheckScheduleId, merchantDomainVerificationWorkflowId, type DomainVerificationResult } from './messages.js';
import { recheckDomainVerifications, verifyMerchantDomains } from './workflow.js';

/**
 * Creates the schedule that re-checks every production domain daily, visible in the Temporal UI under
 * Schedules. Every worker calls this at start: the first creates it, the others find it there.
 */
export async function ensureDomainRecheckSchedule(client: Client, config: Pick<Config, 'temporal'>): Promise<ScheduleHandle> {
  return ensureIntervalWorkflowSchedule(client, {
    scheduleId: domainRecheckScheduleId(config.temporal.taskQueue),
    everyMs: DOMAIN_RECHECK_EVERY_MS,
    overlap: ScheduleOverlapPolicy.SKIP,
    workflowType: recheckDomainVerifications,
    taskQueue: config.temporal.taskQueue,
    args: [{}],
  });
}

/**
 * Has the worker check a production merchant's domains now and waits up to `waitMs` for the answer:
 * the results, or undefined when they did not come in time (the check goes on, and the merchant's
 * summary shows its outcome). Sandbox merchants' domains are not checked. A check already running for
 * the merchant is joined rather than started again.
 */
export async function verifyDomainsNow(
  client: Client,
  config: Pick<Config, 'temporal'>,
  merchant: { platformUuid: string; environment: 'sandbox' | 'production' },
  waitMs = 20_000,
): Promise<DomainVerificationResult[] | undefined> {
  if (merchant.environment !== 'production') return [];
  const handle = await client.workflow.start(verifyMerchantDomains, {
    workflowId: merchantDomainVerificationWorkflowId(merchant.platformUuid),
    taskQueue: config.temporal.taskQueue,
    args: [{ platformUuid: merchant.platformUuid }],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)));
  try {
    return await Promise.race([handle.result(), late]);
  } finally {
    clearTimeout(timer);
  }
}
