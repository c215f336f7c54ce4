import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import type { CartProvenance } from '../checkout/cart-provenance.js';
import { mintRefusal, type LinkRefusal } from '../links/link-uses.js';
import { findActiveMerchant, type ActiveMerchant } from '../merchants/merchant-store.js';

/** Whether an abandoned cart's recovery link may open a session now, and the merchant it would sell for. */
export type RecoveryStanding =
  | { recovers: true; merchant: ActiveMerchant }
  | { recovers: false; why: 'link_unavailable'; linkRefusal: LinkRefusal }
  | { recovers: false; why: 'not_recoverable' };

/**
 * Asked by the recovery link's visit (web/checkout/recovery-route.ts) and by its reminder
 * (activities/cart-session/reminder.ts), so a reminder never leads to a link that opens nothing (the
 * abandoned cart itself is read by core/checkout/cart-recovery.ts). A cart of a payment link's lineage
 * is held to the link's limits (core/links/link-uses.ts); an inactive merchant sells nothing; a cart
 * made without the API key (`public`) recovers into nothing once the merchant requires its key on
 * create-cart, as a new public cart would be refused (README, "Security model").
 */
export async function recoveryStanding(
  db: Db,
  cart: { platformUuid: string; environment: Environment; createdWith: CartProvenance; paymentLinkId: string | null },
): Promise<RecoveryStanding> {
  const linkRefusal = await mintRefusal(db, cart.paymentLinkId);
  if (linkRefusal) return { recovers: false, why: 'link_unavailable', linkRefusal };
  const merchant = await findActiveMerchant(db, cart.platformUuid, cart.environment);
  if (!merchant || (cart.createdWith === 'public' && merchant.requireApiKeyForCarts)) return { recovers: false, why: 'not_recoverable' };
  return { recovers: true, merchant };
}
