import { findCart } from '../../core/checkout/cart-ledger.js';
import { parseContact, type ParsedContact } from '../../core/checkout/contact.js';
import type { Config } from '../../core/config.js';
import type { Keyring } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import { openCustomer } from '../../core/checkout/customer-seal.js';
import { CART_ID_PATTERN } from '../../core/checkout/cart-id.js';
import type { Cart, Store } from '../../core/checkout/cart-schema.js';
import { withDeadline, type Temporal } from '../../core/temporal/connection.js';
import { QUERY_HANDOVER_MS } from '../../core/temporal/worker-loss.js';
import { stateQuery, type CartSessionState } from '../../workflows/cart-session/messages.js';
import { cartSessionHandle } from '../../workflows/cart-session/client.js';
import { TERMINAL_STATUSES } from '../../core/checkout/session.js';
import { budgetProvenance, type CartProvenance } from '../../core/checkout/cart-provenance.js';
import { offersReminder } from '../../core/checkout/cart-recovery.js';
import { readSessionMirror } from '../../core/checkout/session-mirror.js';
import type { WebMetrics } from '../metrics.js';

export interface CheckoutSession {
  cartId: string;
  /** The merchant's, whose proven domains alone may frame the embedded page (web/checkout/embedding.ts). */
  platformUuid: string;
  store: Store;
  /** The merchant's registered name, from the ledger: shown beside store.name when they differ. */
  merchantName: string;
  cart: Cart;
  amount: number;
  state: CartSessionState;
  /**
   * The generation of the page's copy of the state (core/checkout/session-mirror.ts) at which `state`
   * is current; absent when it may not be (read while an update was in flight, or a finished session's).
   */
  stateGeneration?: number;
  /**
   * False while the ledger's customer-started marker is unset: the page marks the cart before its
   * first update to the workflow (markCustomerStarted), since a null marker is what lets a load skip the query.
   */
  customerStarted: boolean;
  /** True once the page recorded its first opening for the dashboard's funnel (recordFunnelStep). */
  pageOpened: boolean;
  /** The merchant's brand colour (#rrggbb), from which the page derives its accent; null: the page's own. */
  brandColour: string | null;
  /**
   * Whose share of the code caps the session's codes spend (web/checkout/limits.ts): `api_key` may spend
   * the keyed share; a session minted from a link, a retry or a recovery spends a stranger's (budgetProvenance).
   */
  codeBudgetAs: CartProvenance;
  /** The payment link of the session's lineage, whose uses its Pay reserves (core/links/link-uses.ts); null for no link. */
  paymentLinkId: string | null;
  /**
   * A recovered session's (docs/abandoned-cart-recovery.md): the contact verified on the abandoned
   * session, which the contact step offers by its hint alone. Its address never reaches the page.
   */
  rememberedContact?: ParsedContact;
  /**
   * The contact step offers "Remind me if I don't finish": the cart asked for recovery and this session
   * is not itself a recovery (docs/abandoned-cart-recovery.md).
   */
  offersReminder: boolean;
  /** The merchant lets its checkout offer saved cards once the code is verified (docs/saved-cards.md). */
  savedCardsAllowed: boolean;
  /** The digest of the verifying browser's cookie, from the ledger: who may act after the code (web/checkout/browser-binding.ts). */
  browserBinding: string | null;
}

/**
 * A query answers in milliseconds from the worker holding the session. When that worker died without
 * a goodbye, Temporal answers it from another once the session is handed over (core/temporal/worker-loss.ts);
 * the page waits for that rather than answer 503 for a worker Temporal replaces.
 */
export const QUERY_DEADLINE_MS = QUERY_HANDOVER_MS + 2_000;

/**
 * The cart as the merchant sent it (ledger) and where the customer is in it (the workflow). A status
 * the ledger already holds as final is taken from there: a finished workflow may be past Temporal's
 * retention, and the customer coming back to a used link should not need a worker to replay it.
 * A pending cart the page never acted for (no customer-started marker) is in the workflow's initial
 * state, known without asking it: the customer's first load, by far the most common, costs one
 * PostgreSQL read, and on its very first display the funnel's one update (docs/decisions/page-first-load.md). If the session's timer already ran out, its
 * expiresOn has passed (the API sets it no later than the timer's end), and the page says expired.
 * Any other open cart is read from the page's copy of the state its last update answered (./mirrored-actions.ts),
 * and only when there is none (a refusal, two updates at once, a writer that died) from the workflow.
 */
export async function loadCheckoutSession(
  deps: { db: Db; temporal: Temporal; config: Pick<Config, 'keyring'>; metrics?: WebMetrics },
  token: string,
): Promise<CheckoutSession | undefined> {
  if (!CART_ID_PATTERN.test(token)) return undefined;
  const row = await findCart(deps.db, token);
  // A cart the sandbox helpers drive (api/sandbox/) has its customer already: the page serves it to no browser.
  if (!row || row.sandboxDriven) return undefined;
  const customerStarted = row.customerStartedAt !== null;
  const session = {
    cartId: token,
    platformUuid: row.platformUuid,
    store: row.store,
    merchantName: row.merchantName,
    cart: row.cart,
    amount: row.amount,
    customerStarted,
    pageOpened: row.pageOpenedAt !== null,
    brandColour: row.brandColour,
    codeBudgetAs: budgetProvenance(row),
    paymentLinkId: row.paymentLinkId,
    offersReminder: offersReminder(row),
    savedCardsAllowed: row.savedCardsAllowed,
    browserBinding: row.browserBinding,
    ...rememberedContactOf(deps.config.keyring, row.recoveredCustomerSealed),
  };
  if (TERMINAL_STATUSES.has(row.status)) {
    const state: CartSessionState = { cartId: token, status: row.status, step: 'done', expiresOn: row.expiresOn.toISOString() };
    return { ...session, state: row.cancelledBy ? { ...state, cancelledBy: row.cancelledBy } : state };
  }
  if (row.status === 'pending' && !customerStarted) return { ...session, state: initialState(token, row.expiresOn), stateGeneration: 0 };
  const mirror = await readSessionMirror<CartSessionState>(deps.db, token);
  const state = mirror.state ?? (await queryState(deps, token));
  return { ...session, state, ...(mirror.generation === undefined ? {} : { stateGeneration: mirror.generation }) };
}

/** What the cart-session workflow's state query answers before its first update (test/integration/checkout-page-first-load.test.ts holds the two equal). */
export function initialState(cartId: string, expiresOn: Date): CartSessionState {
  return { cartId, status: 'pending', step: 'contact', expiresOn: expiresOn.toISOString(), sendAttempts: 0 };
}

/** `reason` labels the operators' count of the page's queries (checkout_page_state_queries_total): each one is a worker activation. */
export function queryState(deps: { temporal: Temporal; metrics?: WebMetrics }, cartId: string, reason: PageQueryReason = 'load'): Promise<CartSessionState> {
  deps.metrics?.pageStateQueries.inc({ reason });
  return withDeadline(deps.temporal, QUERY_DEADLINE_MS, () => cartSessionHandle(deps.temporal.client, cartId).query(stateQuery));
}

export type PageQueryReason = 'load' | 'refund_check' | 'payment_outcome';

function rememberedContactOf(keyring: Keyring, sealed: Buffer | null): { rememberedContact?: ParsedContact } {
  const customer = openCustomer(keyring, sealed);
  const contact = customer && parseContact('email' in customer ? customer.email : customer.phone);
  return contact ? { rememberedContact: contact } : {};
}
