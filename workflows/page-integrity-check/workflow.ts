import { proxyActivities } from '@temporalio/workflow';
import type { PageIntegrityCheckActivities } from '../../activities/page-integrity-check/index.js';
import type { PageIntegrityCheckResult } from './messages.js';

const { checkPageIntegrity: check } = proxyActivities<PageIntegrityCheckActivities>({
  // The walk is two canary carts through every step, a 3-D Secure challenge included: seconds, not minutes.
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '30 seconds', maximumAttempts: 3 },
});

/**
 * Run by a Temporal Schedule (daily by default) and once at each worker start: walks every payment page
 * variant, compares it with the inventory and the header baseline, records the run and alerts on what differs.
 */
export async function checkPageIntegrity(): Promise<PageIntegrityCheckResult> {
  return check();
}
