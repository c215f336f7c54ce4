import type { Environment } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { Db, Sql } from '../db/client.js';
import { resealedCustomer, sealCustomer } from './customer-seal.js';
import type { Customer } from './customer-seal.js';
import { cartMerchantBrandColourColumn } from '../merchants/merchant-store.js';
import type { Cart, Store } from './cart-schema.js';
import type { CartProvenance } from './cart-provenance.js';
import type { CancelledBy, CartStatus } from './session.js';
import { threeDSecureResultOf, type PaymentRecord } from './payment-record.js';

/**
 * The write path of the `carts` table: the order ledger, a projection of each cart session written
 * when the session is created and by the workflow's activities as it moves. Temporal stays the
 * source of truth for the session itself. What is read of it for the merchant's orders, the operators'
 * search and the insights is ./order-views.ts, ./cart-search.ts and ./cart-insights.ts.
 */

export interface NewCart {
  cartId: string;
  platformUuid: string;
  environment: Environment;
  /** The merchant's registered name (merchants.name) at creation: who takes the money, whatever store.name says. */
  merchantName: string;
  currency: string;
  amount: number;
  store: Store;
  cart: Cart;
  expiresOn: string;
  createdAt: Date;
  createdWith: CartProvenance;
  /** The payment link a visit minted this session from; absent for create-cart's own carts. */
  paymentLinkId?: string;
  /** A retry's place in its chain (./cart-retry.ts); absent for a cart the merchant created. */
  retry?: RetryLineage;
  /** The abandoned cart whose recovery link opened this session (./cart-recovery.ts); absent otherwise. */
  recoveredFrom?: string;
}

/**
 * The cart a retry retries, and the first cart of the order's chain, whose cap it counts against: the
 * chain goes on through a recovery (core/orders/cart-retry.ts). `afterRecovery`: the retried cart
 * descends from a recovery, so the retry does too.
 */
export interface RetryLineage {
  retryOf: string;
  retryRoot: string;
  afterRecovery: boolean;
}

/**
 * Refuses a second retry of one cart with PostgreSQL's unique violation on `retry_of` (migration 029),
 * and a second recovered session of one abandoned cart with the one on `recovered_from` (migration 030).
 */
export async function insertCart(sql: Sql, row: NewCart): Promise<void> {
  await sql`
    insert into carts (cart_id, platform_uuid, environment, merchant_name, status, currency, amount, store, cart, expires_on, created_at, customer_started_at, created_with,
                       payment_link_id, retry_of, retry_root, recovered_from, after_recovery)
    values (${row.cartId}, ${row.platformUuid}, ${row.environment}, ${row.merchantName}, 'pending', ${row.currency}, ${row.amount},
            ${sql.json(row.store)}, ${sql.json(row.cart)}, ${row.expiresOn}, ${row.createdAt}, null, ${row.createdWith},
            ${row.paymentLinkId ?? null}, ${row.retry?.retryOf ?? null}, ${row.retry?.retryRoot ?? null}, ${row.recoveredFrom ?? null},
            ${row.recoveredFrom !== undefined || row.retry?.afterRecovery === true})`;
}

/**
 * The write-ahead marker: called before the cart's workflow gets its first customer update, and the
 * update is sent only once it succeeded. A null marker (on a row inserted by insertCart) therefore
 * proves the workflow is still in its initial state; see docs/decisions/page-first-load.md.
 */
export async function markCustomerStarted(db: Db, cartId: string): Promise<boolean> {
  // A cart the sandbox helpers claimed is theirs alone (claimForSandboxHelper): no browser starts it.
  const marked = await db`
    update carts set customer_started_at = coalesce(customer_started_at, now()) where cart_id = ${cartId} and sandbox_driven_at is null`;
  return marked.count === 1;
}

/**
 * The sandbox helpers (api/sandbox/) act as the cart's customer: they may claim a cart no browser has
 * started, and drive again one they claimed. One row update against markCustomerStarted's, so of a
 * browser and the helper only the first acts; false when a browser started the cart first.
 */
export async function claimForSandboxHelper(db: Db, cartId: string): Promise<boolean> {
  const claimed = await db`
    update carts set sandbox_driven_at = coalesce(sandbox_driven_at, now()), customer_started_at = coalesce(customer_started_at, now())
    where cart_id = ${cartId} and (sandbox_driven_at is not null or customer_started_at is null)`;
  return claimed.count === 1;
}

/** The browser that verified the code acts for the customer from now on (web/checkout/browser-binding.ts). */
export async function bindBrowser(db: Db, cartId: string, digest: string): Promise<void> {
  await db`update carts set browser_binding = ${digest} where cart_id = ${cartId}`;
}

/**
 * Removes the row of a cart whose workflow did not start (create-cart's compensation). Only while it
 * is still `pending`: a row the workflow has moved is a live session's.
 */
export async function deleteUnstartedCart(sql: Sql, cartId: string): Promise<void> {
  await sql`delete from carts where cart_id = ${cartId} and status = 'pending'`;
}

export interface CartStatusChange {
  cartId: string;
  status: CartStatus;
  /** The session's payment record (payment-record.ts), once the customer has paid or tried to: the card, and what 3-D Secure did once the payment has an outcome. */
  payment?: PaymentRecord;
  /** Why the session failed: a decline code or `otp_locked`. */
  failureCode?: string;
  /** Who ended a `cancelled` session. */
  cancelledBy?: CancelledBy;
  /** A manual-capture order's capture, in minor units: what refunds are held to. */
  capturedAmount?: number;
  /** The contact the customer verified, once they did; kept sealed with `keyring`. */
  customer?: Customer;
}

/**
 * Idempotent, so an activity retry is harmless. A refunded order is the refunds' to move: a late
 * duplicate of the session's `paid` never takes it back; nor does a late `authorized` take back the
 * capture or void that followed it. `paid_at` is the first step that made the payment succeed.
 */
export async function recordCartStatus(db: Sql, keyring: Keyring, change: CartStatusChange): Promise<void> {
  const customerSealed = change.customer ? sealCustomer(keyring, change.customer) : null;
  await db`
    update carts set
      status = ${change.status},
      payment_brand = coalesce(${change.payment?.brand ?? null}, payment_brand),
      payment_last4 = coalesce(${change.payment?.last4 ?? null}, payment_last4),
      three_d_secure = coalesce(${threeDSecureResultOf(change.payment) ?? null}, three_d_secure),
      paid_with_saved_card = coalesce(${change.payment?.savedCard ?? null}, paid_with_saved_card),
      failure_code = coalesce(${change.failureCode ?? null}, failure_code),
      cancelled_by = coalesce(${change.cancelledBy ?? null}, cancelled_by),
      captured_amount = coalesce(captured_amount, ${change.capturedAmount ?? null}),
      customer_sealed = coalesce(customer_sealed, ${customerSealed}),
      paid_at = coalesce(paid_at, case when ${change.status} in ('authorized', 'paid') then now() end),
      updated_at = now()
    where cart_id = ${change.cartId} and status not in ('partially_refunded', 'refunded')
      and (${change.status} <> 'authorized' or status in ('pending', 'processing', 'authorized'))`;
}

/**
 * The processor's reference for the cart's approved charge (Stripe: the PaymentIntent id), kept once
 * the charge is approved; void and refund use it rather than a lookup by key. The first one stays.
 */
export async function recordPaymentReference(db: Db, cartId: string, reference: string): Promise<void> {
  await db`update carts set payment_reference = coalesce(payment_reference, ${reference}) where cart_id = ${cartId}`;
}

/**
 * Abandoned-cart recovery's claim of the cart's one reminder (activities/cart-session/reminder.ts),
 * in the caller's transaction that holds the row `for update` and decided to send.
 */
export async function claimRecoveryReminder(sql: Sql, cartId: string): Promise<void> {
  await sql`update carts set reminder_sent_at = now() where cart_id = ${cartId}`;
}

/** Gives the reminder's claim back: the provider answered a failure, so nothing went out and the retry may send. */
export async function releaseRecoveryReminder(sql: Sql, cartId: string): Promise<void> {
  await sql`update carts set reminder_sent_at = null where cart_id = ${cartId}`;
}

/**
 * Records that Pay reserved one of its payment link's uses for this session (core/links/link-uses.ts,
 * in its transaction that locks the link); a second Pay keeps the first reservation.
 */
export async function recordLinkUseReserved(sql: Sql, cartId: string): Promise<void> {
  await sql`update carts set link_use_reserved_at = coalesce(link_use_reserved_at, now()) where cart_id = ${cartId}`;
}

/** The cart's payment reference, or undefined when no approved charge was recorded (carts paid before migration 017). */
export async function paymentReferenceOf(sql: Sql, cartId: string): Promise<string | undefined> {
  const [row] = await sql<{ payment_reference: string | null }[]>`select payment_reference from carts where cart_id = ${cartId}`;
  return row?.payment_reference ?? undefined;
}

/** The cart's currency, which capture and refund amounts are in; undefined for a cart the ledger does not hold. */
export async function currencyOfCart(sql: Sql, cartId: string): Promise<string | undefined> {
  const [row] = await sql<{ currency: string }[]>`select currency from carts where cart_id = ${cartId}`;
  return row?.currency;
}

export interface LedgerCart {
  platformUuid: string;
  environment: Environment;
  merchantName: string;
  amount: number;
  currency: string;
  status: CartStatus;
  store: Store;
  cart: Cart;
  expiresOn: Date;
  /** When the page first acted for the customer (markCustomerStarted); null: no update has reached the workflow. */
  customerStartedAt: Date | null;
  /** When the hosted page was first opened (recordFunnelStep); null: never, or before migration 019. */
  pageOpenedAt: Date | null;
  createdWith: CartProvenance;
  /** The merchant's brand colour as it is now (not as at the cart's creation); null: the page's own. */
  brandColour: string | null;
  /** Who ended a `cancelled` session; null otherwise (and for carts cancelled before migration 022, all by their customer). */
  cancelledBy: CancelledBy | null;
  /** What a paid order captured, minor units: the amount, or a manual capture's (part of it). */
  capturedAmount: number;
  /** The abandoned cart whose recovery link opened this session; null for every other cart. */
  recoveredFrom: string | null;
  /** Whether this session descends from a recovery (one, or a retry made since): its lineage's one recovery is spent (migration 063). */
  afterRecovery: boolean;
  /** The payment link this session's lineage was minted from; null for every other cart. */
  paymentLinkId: string | null;
  /** The failed cart this session retries; null for every other cart. */
  retryOf: string | null;
  /** A recovered session's: the contact verified on the abandoned session it recovers, sealed (core/checkout/customer-seal.ts); null otherwise. */
  recoveredCustomerSealed: Buffer | null;
  /** Whether the merchant's checkout offers saved cards after the code, as its setting is now (docs/saved-cards.md). */
  savedCardsAllowed: boolean;
  /** The SHA-256 of the cookie of the browser that verified the code (bindBrowser); null until one did. */
  browserBinding: string | null;
  /** Whether the sandbox helpers claimed the cart (claimForSandboxHelper): then no browser acts for it. */
  sandboxDriven: boolean;
}

interface CartRow {
  platform_uuid: string;
  environment: Environment;
  merchant_name: string;
  amount: string;
  currency: string;
  status: CartStatus;
  store: Store;
  cart: Cart;
  expires_on: Date;
  customer_started_at: Date | null;
  page_opened_at: Date | null;
  created_with: CartProvenance;
  brand_colour: string | null;
  cancelled_by: CancelledBy | null;
  captured_amount: string | null;
  recovered_from: string | null;
  after_recovery: boolean;
  payment_link_id: string | null;
  retry_of: string | null;
  recovered_customer_sealed: Buffer | null;
  saved_cards_allowed: boolean | null;
  browser_binding: string | null;
  sandbox_driven: boolean;
}

const toLedgerCart = (r: CartRow): LedgerCart => ({
  platformUuid: r.platform_uuid,
  environment: r.environment,
  merchantName: r.merchant_name,
  amount: Number(r.amount),
  currency: r.currency,
  status: r.status,
  store: r.store,
  cart: r.cart,
  expiresOn: r.expires_on,
  customerStartedAt: r.customer_started_at,
  pageOpenedAt: r.page_opened_at,
  createdWith: r.created_with,
  brandColour: r.brand_colour,
  cancelledBy: r.cancelled_by,
  capturedAmount: Number(r.captured_amount ?? r.amount),
  recoveredFrom: r.recovered_from,
  afterRecovery: r.after_recovery,
  paymentLinkId: r.payment_link_id,
  retryOf: r.retry_of,
  recoveredCustomerSealed: r.recovered_customer_sealed,
  savedCardsAllowed: r.saved_cards_allowed ?? true,
  browserBinding: r.browser_binding,
  sandboxDriven: r.sandbox_driven,
});

const LEDGER_CART_COLUMNS = (sql: Sql) =>
  sql`platform_uuid, environment, merchant_name, amount, currency, status, store, cart, expires_on, customer_started_at, page_opened_at, created_with, cancelled_by, captured_amount, recovered_from, after_recovery, payment_link_id, retry_of, browser_binding,
    sandbox_driven_at is not null as sandbox_driven,
    (select recovered.customer_sealed from carts recovered where recovered.cart_id = carts.recovered_from) as recovered_customer_sealed,
    ${cartMerchantBrandColourColumn(sql)},
    (select m.saved_cards_allowed from merchants m where m.platform_uuid = carts.platform_uuid) as saved_cards_allowed`;

export async function findCart(db: Db, cartId: string): Promise<LedgerCart | undefined> {
  const [row] = await db<CartRow[]>`
    select ${LEDGER_CART_COLUMNS(db)} from carts where cart_id = ${cartId}`;
  return row && toLedgerCart(row);
}

/** The merchant's registered name as the cart recorded it at creation: what code messages name, never the request's store name. */
export async function findCartMerchantName(db: Db, cartId: string): Promise<string | undefined> {
  const [row] = await db<{ merchant_name: string }[]>`select merchant_name from carts where cart_id = ${cartId}`;
  return row?.merchant_name;
}

/** The cart, locked until the transaction ends: one event at a time per cart, so sequences never collide. */
export async function lockCart(tx: Sql, cartId: string): Promise<LedgerCart | undefined> {
  const [row] = await tx<CartRow[]>`
    select ${LEDGER_CART_COLUMNS(tx)} from carts where cart_id = ${cartId} for update`;
  return row && toLedgerCart(row);
}

/** Whose cart: the merchant API sees only its own merchant's carts of its own environment. */
export interface CartOwner {
  platformUuid: string;
  environment: Environment;
}

/**
 * The sum of the cart's succeeded refunds and the status it implies (refunded once it reaches the
 * captured amount). Called with the cart locked, in the transaction that settles the refund.
 */
export async function recordRefundedAmount(tx: Sql, cartId: string, refundedAmount: number): Promise<CartStatus> {
  const [row] = await tx<{ status: CartStatus }[]>`
    update carts set
      refunded_amount = ${refundedAmount},
      status = case when ${refundedAmount} = 0 then 'paid'
        when ${refundedAmount} >= coalesce(captured_amount, amount) then 'refunded' else 'partially_refunded' end,
      updated_at = now()
    where cart_id = ${cartId}
    returning status`;
  if (!row) throw new Error(`cart ${cartId} is not in the ledger`);
  return row.status;
}

/**
 * The steps of a session the dashboard's funnel counts, in order. `created` is the row itself and
 * `paid` its status; the four between are written by the hosted page when it first reaches them
 * (recordFunnelStep, migration 019).
 */
export const FUNNEL_STEPS = ['created', 'page_opened', 'code_sent', 'code_verified', 'pay_attempted', 'paid'] as const;
export type FunnelStep = (typeof FUNNEL_STEPS)[number];
export type RecordedFunnelStep = Exclude<FunnelStep, 'created' | 'paid'>;

const FUNNEL_COLUMN = {
  page_opened: 'page_opened_at',
  code_sent: 'code_sent_at',
  code_verified: 'code_verified_at',
  pay_attempted: 'pay_attempted_at',
} as const satisfies Record<RecordedFunnelStep, string>;

/** The first time only: a reload, a resend or a second try keeps the instant the step was first reached. */
export async function recordFunnelStep(db: Db, cartId: string, step: RecordedFunnelStep): Promise<void> {
  const column = FUNNEL_COLUMN[step];
  await db`update carts set ${db(column)} = now() where cart_id = ${cartId} and ${db(column)} is null`;
}

/** The currency of the refunded cart, for the refund ledger's totals (refunds keep no currency of their own). */
export const refundCartCurrencyColumn = (sql: Sql) => sql`(select currency from carts where carts.cart_id = refunds.cart_id)`;

/** Re-seals with the newest key every order's customer contact it did not seal (`npm run reseal`); returns how many. */
export async function resealCartCustomers(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ cart_id: string; customer_sealed: Buffer }[]>`select cart_id, customer_sealed from carts where customer_sealed is not null`;
  let resealed = 0;
  for (const row of rows) {
    const fresh = resealedCustomer(keyring, row.customer_sealed);
    if (!fresh) continue;
    const updated = await db`update carts set customer_sealed = ${fresh} where cart_id = ${row.cart_id} and customer_sealed = ${row.customer_sealed}`;
    resealed += updated.count;
  }
  return resealed;
}

/** The processor warned the order's payment is likely fraudulent (Stripe: radar.early_fraud_warning.created); the first warning's time is kept. */
export async function markEarlyFraudWarning(sql: Sql, cartId: string, warnedAt: Date): Promise<void> {
  await sql`update carts set early_fraud_warning_at = coalesce(early_fraud_warning_at, ${warnedAt}), updated_at = now() where cart_id = ${cartId}`;
}
