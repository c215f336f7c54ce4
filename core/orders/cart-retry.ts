import type { Sql } from '../db/client.js';
import type { LinkRefusal } from '../links/link-uses.js';
import type { CartOwner, RetryLineage } from '../checkout/cart-ledger.js';
import { RETRIES, type Cart, type Store } from '../checkout/cart-schema.js';
import type { CartProvenance } from '../checkout/cart-provenance.js';
import type { CartStatus } from '../checkout/session.js';

/**
 * Retries of a failed session (docs/decisions/cart-retries.md): what a retry is made from, as the
 * `carts` ledger holds it, and whether it may be made. The new session itself is created by
 * create-cart's own path (api/merchant/retry-session.ts); this file only reads the chain.
 */

/** The cart to retry: its store and cart as recorded at creation, its status, and where it stands in its chain of retries. */
export interface RetrySource {
  cartId: string;
  status: CartStatus;
  store: Store;
  cart: Cart;
  createdWith: CartProvenance;
  /** The payment link the cart's lineage was minted from, whose limits a retry is held to (core/links/link-uses.ts); null for no link. */
  paymentLinkId: string | null;
  /** The chain a retry of this cart joins. */
  lineage: RetryLineage;
  /** The cart that already retries this one, if any: a cart is retried once. */
  retriedBy: string | null;
  /** Retries made so far of the chain's first cart, whatever cart of the chain they retried. */
  retriesMade: number;
}

/** The one status a retry is for: a payment that was tried and failed. */
export const RETRYABLE_STATUS: CartStatus = 'failed';

/**
 * The cart if it is this owner's, else undefined (another merchant's cart and an unknown one look the
 * same). One query: the index carts_retry_root counts the chain. The chain is the order's, whatever
 * recovery came between: a recovered session's retries join the chain of the cart it recovers, so the
 * cap counts every retry of the order, before the recovery and after it.
 */
export async function findRetrySource(db: Sql, owner: CartOwner, cartId: string): Promise<RetrySource | undefined> {
  const [row] = await db<
    {
      cart_id: string;
      status: CartStatus;
      store: Store;
      cart: Cart;
      created_with: CartProvenance;
      payment_link_id: string | null;
      root: string;
      after_recovery: boolean;
      retried_by: string | null;
      retries_made: number;
    }[]
  >`
    select c.cart_id, c.status, c.store, c.cart, c.created_with, c.payment_link_id, chain.root, c.after_recovery,
      (select r.cart_id from carts r where r.retry_of = c.cart_id) as retried_by,
      (select count(*) from carts r where r.retry_root = chain.root)::int as retries_made
    from carts c
      left join carts recovered on recovered.cart_id = c.recovered_from
      cross join lateral (select coalesce(c.retry_root, recovered.retry_root, recovered.cart_id, c.cart_id) as root) chain
    where c.cart_id = ${cartId} and c.platform_uuid = ${owner.platformUuid} and c.environment = ${owner.environment}`;
  if (!row) return undefined;
  return {
    cartId: row.cart_id,
    status: row.status,
    store: row.store,
    cart: row.cart,
    createdWith: row.created_with,
    paymentLinkId: row.payment_link_id,
    lineage: { retryOf: row.cart_id, retryRoot: row.root, afterRecovery: row.after_recovery },
    retriedBy: row.retried_by,
    retriesMade: row.retries_made,
  };
}

export type RetryRefusal =
  | { code: 'not_retryable'; status: CartStatus }
  | { code: 'already_retried'; retriedBy: string }
  | { code: 'limit_reached'; allowed: number; root: string }
  /** The payment link of the cart's lineage sells no more sessions (core/links/link-uses.ts: mintRefusal). */
  | { code: 'link_unavailable'; paymentLinkId: string; refusal: LinkRefusal };

/**
 * Why this cart may not be retried, or undefined when it may. Its status first (only a failed payment
 * is retried), then whether it was retried already (a cart has one retry, so one order never has two
 * open sessions at once), then the cap of the chain's first cart, which every cart of the chain copies.
 */
export function retryRefusal(source: RetrySource): RetryRefusal | undefined {
  if (source.status !== RETRYABLE_STATUS) return { code: 'not_retryable', status: source.status };
  if (source.retriedBy !== null) return { code: 'already_retried', retriedBy: source.retriedBy };
  const allowed = source.cart.retries ?? RETRIES.default;
  if (source.retriesMade >= allowed) return { code: 'limit_reached', allowed, root: source.lineage.retryRoot };
  return undefined;
}
