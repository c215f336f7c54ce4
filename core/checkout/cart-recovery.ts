import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import type { Cart, Store } from './cart-schema.js';
import type { CartProvenance } from './cart-provenance.js';
import { OPEN_STATUSES, PAID_STATUSES, type CartStatus } from './session.js';

/**
 * What a recovery link (./recovery-token.ts, docs/abandoned-cart-recovery.md) reopens, as the `carts`
 * ledger holds it: the abandoned cart, and the one session its link already opened, if any. The new
 * session itself is made by create-cart's own path (web/checkout/recovery-route.ts); this file only reads.
 */

/**
 * Whether an order offers a recovery link: abandoned, its cart asked for recovery, and its lineage has
 * spent none (it is not a recovery, nor a retry made since one): one recovery per order, however its
 * sessions were retried.
 */
export const offersRecovery = (order: { status: CartStatus; cart: Cart; afterRecovery: boolean }): boolean =>
  order.status === 'abandoned' && order.cart.recovery?.enabled === true && !order.afterRecovery;

/** Whether a session's page offers the customer a reminder: its cart asked for recovery, and its lineage has spent none. */
export const offersReminder = (session: { cart: Cart; afterRecovery: boolean }): boolean => session.cart.recovery?.enabled === true && !session.afterRecovery;

export interface RecoverySource {
  cartId: string;
  platformUuid: string;
  environment: Environment;
  store: Store;
  cart: Cart;
  createdWith: CartProvenance;
  /** The payment link the cart's lineage was minted from, whose limits a recovery is held to (core/links/link-uses.ts); null for no link. */
  paymentLinkId: string | null;
  /** Whether the link may open a session (offersRecovery): a token names no other cart unless forged with our keys. */
  recoverable: boolean;
  /** The session the link opened already (carts.recovered_from is unique): every later visit is about it. */
  recovered: { cartId: string; status: CartStatus } | null;
}

/** The cart if it is in this environment's ledger, else undefined (the web tier serves one environment). */
export async function findRecoverySource(db: Db, environment: Environment, cartId: string): Promise<RecoverySource | undefined> {
  const [row] = await db<
    {
      cart_id: string;
      platform_uuid: string;
      environment: Environment;
      status: CartStatus;
      store: Store;
      cart: Cart;
      created_with: CartProvenance;
      payment_link_id: string | null;
      after_recovery: boolean;
      recovered_id: string | null;
      recovered_status: CartStatus | null;
    }[]
  >`
    select c.cart_id, c.platform_uuid, c.environment, c.status, c.store, c.cart, c.created_with, c.payment_link_id, c.after_recovery,
      r.cart_id as recovered_id, r.status as recovered_status
    from carts c left join carts r on r.recovered_from = c.cart_id
    where c.cart_id = ${cartId} and c.environment = ${environment}`;
  if (!row) return undefined;
  return {
    cartId: row.cart_id,
    platformUuid: row.platform_uuid,
    environment: row.environment,
    store: row.store,
    cart: row.cart,
    createdWith: row.created_with,
    paymentLinkId: row.payment_link_id,
    recoverable: offersRecovery({ status: row.status, cart: row.cart, afterRecovery: row.after_recovery }),
    recovered: row.recovered_id && row.recovered_status ? { cartId: row.recovered_id, status: row.recovered_status } : null,
  };
}

export type RecoveryVisit = { to: 'new' } | { to: 'open'; cartId: string } | { to: 'paid' } | { to: 'closed' };

/**
 * Where a visit of the link goes: a new session the first time; the same session while it is open, so
 * one abandoned cart never has two sessions the customer could both pay; a page saying the order is
 * paid once it is; and a closed link once that session ended unpaid (abandoned, failed or cancelled:
 * a recovery gets no recovery of its own).
 */
export function recoveryVisit(source: RecoverySource): RecoveryVisit {
  const { recovered } = source;
  if (!recovered) return { to: 'new' };
  if (OPEN_STATUSES.has(recovered.status)) return { to: 'open', cartId: recovered.cartId };
  return PAID_STATUSES.has(recovered.status) ? { to: 'paid' } : { to: 'closed' };
}
