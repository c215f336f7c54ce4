import { purgeCardsOlderThan } from '../../core/checkout/card-vault.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';

/** What the card vault purge (workflows/card-vault-purge/) runs on each tick of its schedule. */
export function createCardVaultPurgeActivities(deps: { db: Db; logger: Logger }) {
  const { db, logger } = deps;
  return {
    /** Cards older than any session can need, whatever became of their workflow. */
    async purgeCardVault(input: { olderThanMs: number }): Promise<number> {
      const purged = await purgeCardsOlderThan(db, input.olderThanMs);
      if (purged > 0) logger.info({ purged }, 'card vault purged of cards no session can need');
      return purged;
    },
  };
}

export type CardVaultPurgeActivities = ReturnType<typeof createCardVaultPurgeActivities>;
