import type { Db } from '../../core/db/client.js';
import { CART_ID_PATTERN, cartWorkflowId } from '../../core/ids.js';
import type { Cart, Store } from '../../core/schemas/cart.js';
import { withDeadline, type Temporal } from '../../core/temporal.js';
import { stateQuery, TERMINAL_STATUSES, type CartSessionState, type CartStatus } from '../../workflows/messages.js';

export interface CheckoutSession {
  cartId: string;
  store: Store;
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
  const [row] = await deps.db<{ store: Store; cart: Cart; amount: string; status: CartStatus; expires_on: Date }[]>`
    select store, cart, amount, status, expires_on from carts where cart_id = ${token}`;
  if (!row) return undefined;
  const session = { cartId: token, store: row.store, cart: row.cart, amount: Number(row.amount) };
  if (TERMINAL_STATUSES.has(row.status)) {
    return { ...session, state: { cartId: token, status: row.status, step: 'done', expiresOn: row.expires_on.toISOString() } };
  }
  return { ...session, state: await queryState(deps, token) };
}

export function queryState(deps: { temporal: Temporal }, cartId: string): Promise<CartSessionState> {
  const handle = deps.temporal.client.workflow.getHandle(cartWorkflowId(cartId));
  return withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.query(stateQuery));
}
