import { discardCartCards } from '../../core/checkout/card-vault.js';
import { recordCartStatus, type CartStatusChange } from '../../core/checkout/cart-ledger.js';
import type { Db } from '../../core/db/client.js';
import type { RequestDelivery } from '../../core/webhooks/delivery.js';
import { createCartEventActivities } from '../shared/cart-events.js';

/**
 * What the session writes as it goes (the workflow runs these as local activities): the order ledger's
 * status, the cart's webhook events, and the cards it no longer needs. Idempotent, so retries are harmless.
 */
export function createLedgerActivities(deps: { db: Db; requestDelivery: RequestDelivery }) {
  const { db } = deps;
  return {
    recordCartStatus: (input: CartStatusChange): Promise<void> => recordCartStatus(db, input),

    ...createCartEventActivities(deps),

    /** Removes every card the cart left in the vault: after the charge, or when it never paid. */
    discardCards: (input: { cartId: string }): Promise<void> => discardCartCards(db, input.cartId),
  };
}
