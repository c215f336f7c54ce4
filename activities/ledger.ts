import type { Db } from '../core/db/client.js';
import type { CartStatus } from '../workflows/messages.js';

export interface CartStatusChange {
  cartId: string;
  status: CartStatus;
  /** The card as brand + last4, once the customer has paid or tried to. */
  payment?: { brand: string; last4: string };
  /** Why the session failed: a decline code or `otp_locked`. */
  failureCode?: string;
}

/** Keeps the order ledger in step with the workflow; idempotent, so retries are harmless. */
export function createLedgerActivities(db: Db) {
  return {
    async recordCartStatus(input: CartStatusChange): Promise<void> {
      await db`
        update carts set
          status = ${input.status},
          payment_brand = coalesce(${input.payment?.brand ?? null}, payment_brand),
          payment_last4 = coalesce(${input.payment?.last4 ?? null}, payment_last4),
          failure_code = coalesce(${input.failureCode ?? null}, failure_code),
          updated_at = now()
        where cart_id = ${input.cartId}`;
    },
  };
}
