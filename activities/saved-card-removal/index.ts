import type { PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { deleteSavedCard, PENDING_SAVED_CARD_MS, staleSavedCards } from '../../core/checkout/saved-cards.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';

/** What the saved-card removal (workflows/saved-card-removal/) runs on each tick of its schedule. */
export function createSavedCardRemovalActivities(deps: { db: Db; logger: Logger; paymentProcessor: PaymentProcessor }) {
  const { db, logger, paymentProcessor } = deps;
  return {
    /**
     * Marks removed the cards unused for `unusedMs` or past their expiry, then detaches every removed
     * card at the processor and deletes its row. A card of another processor than this worker's
     * stays until a worker of that processor runs. Returns how many were detached.
     */
    async removeSavedCards(input: { unusedMs: number }): Promise<number> {
      const removed = await staleSavedCards(db, { unusedMs: input.unusedMs, pendingMs: PENDING_SAVED_CARD_MS });
      let detached = 0;
      for (const card of removed) {
        if (card.processor !== paymentProcessor.name || !paymentProcessor.detachCard) continue;
        await paymentProcessor.detachCard(card.reference);
        await deleteSavedCard(db, card.id);
        detached++;
      }
      if (detached > 0) logger.info({ detached }, 'saved cards detached at the processor and deleted');
      return detached;
    },
  };
}

export type SavedCardRemovalActivities = ReturnType<typeof createSavedCardRemovalActivities>;
