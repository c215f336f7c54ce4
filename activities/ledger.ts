import type { Db } from '../core/db/client.js';
import type { CartStatus } from '../workflows/messages.js';

/** Keeps the order ledger in step with the workflow; idempotent, so retries are harmless. */
export function createLedgerActivities(db: Db) {
  return {
    async recordCartStatus(input: { cartId: string; status: CartStatus }): Promise<void> {
      await db`update carts set status = ${input.status}, updated_at = now() where cart_id = ${input.cartId}`;
    },
  };
}
