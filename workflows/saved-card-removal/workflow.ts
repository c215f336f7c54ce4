import { proxyActivities } from '@temporalio/workflow';
import type { SavedCardRemovalActivities } from '../../activities/saved-card-removal/index.js';
import type { SavedCardRemovalInput } from './messages.js';

const { removeSavedCards: remove } = proxyActivities<SavedCardRemovalActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', maximumAttempts: 5 },
});

/**
 * Run by a Temporal Schedule, and started at once by a customer's removal (docs/saved-cards.md):
 * removes the saved cards unused for 13 months or past their expiry, then detaches at the processor
 * every removed card (the customer's, an operator's erase, those) and deletes its row.
 */
export async function removeSavedCards(input: SavedCardRemovalInput): Promise<{ detached: number }> {
  return { detached: await remove({ unusedMs: input.unusedMs }) };
}
