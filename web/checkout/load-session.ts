import { findCart } from '../../core/checkout/cart-ledger.js';
import type { Db } from '../../core/db/client.js';
import { CART_ID_PATTERN } from '../../core/checkout/cart-id.js';
import type { Cart, Store } from '../../core/checkout/cart-schema.js';
import { withDeadline, type Temporal } from '../../core/temporal.js';
import { stateQuery, type CartSessionState } from '../../workflows/cart-session/messages.js';
import { cartSessionHandle } from '../../workflows/cart-session/client.js';
import { TERMINAL_STATUSES } from '../../core/checkout/session.js';

export interface CheckoutSession {
  cartId: string;
  store: Store;
  /** The merchant's registered name, from the ledger: shown beside store.name when they differ. */
  merchantName: string;
  cart: Cart;
  amount: number;
  state: CartSessionState;
}

export const QUERY_DEADLINE_MS = 3_000;

/**
 * The cart as the merchant sent it (ledger) and where the customer is in it (the workflow). A status
 * the ledger already holds as final is taken from there: a finished workflow may be past Temporal's
 * retention, and the customer coming back to a used link should not need a worker to replay it.
 */
export async function loadCheckoutSession(deps: { db: Db; temporal: Temporal }, token: string): Promise<CheckoutSession | undefined> {
  if (!CART_ID_PATTERN.test(token)) return undefined;
  const row = await findCart(deps.db, token);
  if (!row) return undefined;
  const session = { cartId: token, store: row.store, merchantName: row.merchantName, cart: row.cart, amount: row.amount };
  if (TERMINAL_STATUSES.has(row.status)) {
    return { ...session, state: { cartId: token, status: row.status, step: 'done', expiresOn: row.expiresOn.toISOString() } };
  }
  return { ...session, state: await queryState(deps, token) };
}

export function queryState(deps: { temporal: Temporal }, cartId: string): Promise<CartSessionState> {
  return withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => cartSessionHandle(deps.temporal.client, cartId).query(stateQuery));
}
