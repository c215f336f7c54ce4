import type { Db } from '../../core/db/client.js';
import { CART_ID_PATTERN, cartWorkflowId } from '../../core/ids.js';
import type { Cart, Store } from '../../core/schemas/cart.js';
import { withDeadline, type Temporal } from '../../core/temporal.js';
import { stateQuery, type CartSessionState } from '../../workflows/messages.js';

export interface CheckoutSession {
  store: Store;
  cart: Cart;
  amount: number;
  state: CartSessionState;
}

const QUERY_DEADLINE_MS = 3_000;

/** The cart as the merchant sent it (ledger) and where the customer is in it (the workflow). */
export async function loadCheckoutSession(deps: { db: Db; temporal: Temporal }, token: string): Promise<CheckoutSession | undefined> {
  if (!CART_ID_PATTERN.test(token)) return undefined;
  const [row] = await deps.db<{ store: Store; cart: Cart; amount: string }[]>`
    select store, cart, amount from carts where cart_id = ${token}`;
  if (!row) return undefined;
  const handle = deps.temporal.client.workflow.getHandle(cartWorkflowId(token));
  const state = await withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => handle.query(stateQuery));
  return { store: row.store, cart: row.cart, amount: Number(row.amount), state };
}
