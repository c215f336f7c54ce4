import { proxyActivities } from '@temporalio/workflow';
import type { CardVaultPurgeActivities } from '../../activities/card-vault-purge/index.js';
import type { CardVaultPurgeInput } from './messages.js';

const { purgeCardVault: purge } = proxyActivities<CardVaultPurgeActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

/**
 * Run by a Temporal Schedule: deletes every card older than a session can need it, whatever became
 * of its workflow (terminated, reset, failed before discarding it). The cart workflow empties the
 * vault itself when it ends; this is the net under it.
 */
export async function purgeCardVault(input: CardVaultPurgeInput): Promise<{ purged: number }> {
  return { purged: await purge({ olderThanMs: input.olderThanMs }) };
}
