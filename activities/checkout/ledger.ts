import { recordCartStatus, type CartStatusChange } from '../../core/checkout/cart-ledger.js';
import type { Db } from '../../core/db/client.js';

/** Keeps the order ledger in step with the workflow; idempotent, so retries are harmless. */
export function createLedgerActivities(db: Db) {
  return {
    recordCartStatus: (input: CartStatusChange): Promise<void> => recordCartStatus(db, input),
  };
}
