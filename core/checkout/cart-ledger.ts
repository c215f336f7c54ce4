import type { Environment } from '../config.js';
import type { Db, Sql } from '../db/client.js';
import { cartMerchantBrandColourColumn } from '../merchants/merchant-store.js';
import type { Cart, Store } from './cart-schema.js';
import type { CartProvenance } from './cart-provenance.js';
import type { CancelledBy, CartStatus } from './session.js';
import type { ThreeDSecureResult } from './payment-processor.js';

/**
 * The one owner of the `carts` table: the order ledger, a projection of each cart session written
 * when the session is created and by the workflow's activities as it moves. Temporal stays the
 * source of truth for the session itself.
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
}

export async function insertCart(sql: Sql, row: NewCart): Promise<void> {
  await sql`
    insert into carts (cart_id, platform_uuid, environment, merchant_name, status, currency, amount, store, cart, expires_on, created_at, customer_started_at, created_with)
    values (${row.cartId}, ${row.platformUuid}, ${row.environment}, ${row.merchantName}, 'pending', ${row.currency}, ${row.amount},
            ${sql.json(row.store)}, ${sql.json(row.cart)}, ${row.expiresOn}, ${row.createdAt}, null, ${row.createdWith})`;
}

/**
 * The write-ahead marker: called before the cart's workflow gets its first customer update, and the
 * update is sent only once it succeeded. A null marker (on a row inserted by insertCart) therefore
 * proves the workflow is still in its initial state; see docs/decisions/page-first-load.md.
 */
export async function markCustomerStarted(db: Db, cartId: string): Promise<void> {
  await db`update carts set customer_started_at = now() where cart_id = ${cartId} and customer_started_at is null`;
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
  /** The card as brand + last4, once the customer has paid or tried to; what 3-D Secure did once the payment has an outcome. */
  payment?: { brand: string; last4: string; threeDSecure?: ThreeDSecureResult };
  /** Why the session failed: a decline code or `otp_locked`. */
  failureCode?: string;
  /** Who ended a `cancelled` session. */
  cancelledBy?: CancelledBy;
  /** A manual-capture order's capture, in minor units: what refunds are held to. */
  capturedAmount?: number;
}

/**
 * Idempotent, so an activity retry is harmless. A refunded order is the refunds' to move: a late
 * duplicate of the session's `paid` never takes it back; nor does a late `authorized` take back the
 * capture or void that followed it.
 */
export async function recordCartStatus(db: Sql, change: CartStatusChange): Promise<void> {
  await db`
    update carts set
      status = ${change.status},
      payment_brand = coalesce(${change.payment?.brand ?? null}, payment_brand),
      payment_last4 = coalesce(${change.payment?.last4 ?? null}, payment_last4),
      three_d_secure = coalesce(${change.payment?.threeDSecure ?? null}, three_d_secure),
      failure_code = coalesce(${change.failureCode ?? null}, failure_code),
      cancelled_by = coalesce(${change.cancelledBy ?? null}, cancelled_by),
      captured_amount = coalesce(captured_amount, ${change.capturedAmount ?? null}),
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
});

const LEDGER_CART_COLUMNS = (sql: Sql) =>
  sql`platform_uuid, environment, merchant_name, amount, currency, status, store, cart, expires_on, customer_started_at, page_opened_at, created_with, cancelled_by, captured_amount,
    ${cartMerchantBrandColourColumn(sql)}`;

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

/** A cart as the merchant's order views need it. */
export interface OrderRow {
  cartId: string;
  status: CartStatus;
  amount: number;
  currency: string;
  refundedAmount: number;
  /** What was captured (minor units): the amount once paid automatically, a manual capture's amount, or null before any capture. */
  capturedAmount: number | null;
  payment: { brand: string; last4: string; threeDSecure?: { result: ThreeDSecureResult } } | null;
  failureCode: string | null;
  cart: Cart;
  expiresOn: Date;
  createdAt: Date;
  /** createdAt in microseconds since the epoch (decimal digits), PostgreSQL's precision, for list cursors. */
  createdAtMicros: string;
  createdWith: CartProvenance;
}

interface OrderDbRow {
  cart_id: string;
  status: CartStatus;
  amount: string;
  currency: string;
  refunded_amount: string;
  captured_amount: string | null;
  payment_brand: string | null;
  payment_last4: string | null;
  three_d_secure: ThreeDSecureResult | null;
  failure_code: string | null;
  cart: Cart;
  expires_on: Date;
  created_at: Date;
  created_at_micros: string;
  created_with: CartProvenance;
}

/** Statuses of an order whose charge was captured; without a recorded manual capture, it was captured in full. */
const CAPTURED_IN_FULL: ReadonlySet<CartStatus> = new Set(['paid', 'partially_refunded', 'refunded']);

const toOrderRow = (r: OrderDbRow): OrderRow => ({
  cartId: r.cart_id,
  status: r.status,
  amount: Number(r.amount),
  currency: r.currency,
  refundedAmount: Number(r.refunded_amount),
  capturedAmount: r.captured_amount !== null ? Number(r.captured_amount) : CAPTURED_IN_FULL.has(r.status) ? Number(r.amount) : null,
  payment:
    r.payment_brand && r.payment_last4
      ? { brand: r.payment_brand, last4: r.payment_last4, ...(r.three_d_secure ? { threeDSecure: { result: r.three_d_secure } } : {}) }
      : null,
  failureCode: r.failure_code,
  cart: r.cart,
  expiresOn: r.expires_on,
  createdAt: r.created_at,
  createdAtMicros: r.created_at_micros,
  createdWith: r.created_with,
});

export interface CartListFilter {
  status?: CartStatus;
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
  extra?: { key: string; value: string };
  /** Only carts after this one in the list's order (newest first, then cartId descending). */
  after?: { createdAtMicros: string; cartId: string };
  limit: number;
}

const ORDER_COLUMNS = (sql: Sql) => sql`
  cart_id, status, amount, currency, refunded_amount, captured_amount, payment_brand, payment_last4, three_d_secure, failure_code, cart, expires_on, created_at, created_with,
  (extract(epoch from created_at) * 1000000)::bigint::text as created_at_micros`;

/** One owner's carts, newest first (ties by cartId), filtered; the index carts_merchant_env_created serves it. */
export async function listOwnerCarts(db: Db, owner: CartOwner, filter: CartListFilter): Promise<OrderRow[]> {
  const { after, extra } = filter;
  const rows = await db<OrderDbRow[]>`
    select ${ORDER_COLUMNS(db)} from carts
    where platform_uuid = ${owner.platformUuid} and environment = ${owner.environment}
      ${filter.status ? db`and status = ${filter.status}` : db``}
      ${filter.createdFrom ? db`and created_at >= ${filter.createdFrom}` : db``}
      ${filter.createdTo ? db`and created_at < ${filter.createdTo}` : db``}
      ${extra ? db`and cart -> 'extra' @> ${db.json({ [extra.key]: extra.value })}` : db``}
      ${after ? db`and (created_at, cart_id) < (timestamptz 'epoch' + ${after.createdAtMicros}::bigint * interval '1 microsecond', ${after.cartId})` : db``}
    order by created_at desc, cart_id desc
    limit ${filter.limit}`;
  return rows.map(toOrderRow);
}

/** The cart if it is this owner's, else undefined: another merchant's cart and an unknown one look the same. */
export async function findOwnerCart(db: Db, owner: CartOwner, cartId: string): Promise<OrderRow | undefined> {
  const [row] = await db<OrderDbRow[]>`
    select ${ORDER_COLUMNS(db)} from carts where cart_id = ${cartId} and platform_uuid = ${owner.platformUuid} and environment = ${owner.environment}`;
  return row && toOrderRow(row);
}

/** As findOwnerCart, locked until the transaction ends: one refund reservation or settlement at a time per cart. */
export async function lockOwnerCart(tx: Sql, owner: CartOwner, cartId: string): Promise<OrderRow | undefined> {
  const [row] = await tx<OrderDbRow[]>`
    select ${ORDER_COLUMNS(tx)} from carts
    where cart_id = ${cartId} and platform_uuid = ${owner.platformUuid} and environment = ${owner.environment} for update`;
  return row && toOrderRow(row);
}

/**
 * The sum of the cart's succeeded refunds and the status it implies (refunded once it reaches the
 * captured amount). Called with the cart locked, in the transaction that settles the refund.
 */
export async function recordRefundedAmount(tx: Sql, cartId: string, refundedAmount: number): Promise<CartStatus> {
  const [row] = await tx<{ status: CartStatus }[]>`
    update carts set
      refunded_amount = ${refundedAmount},
      status = case when ${refundedAmount} >= coalesce(captured_amount, amount) then 'refunded' else 'partially_refunded' end,
      updated_at = now()
    where cart_id = ${cartId}
    returning status`;
  if (!row) throw new Error(`cart ${cartId} is not in the ledger`);
  return row.status;
}

/**
 * Where a session is, as the ledger knows it. The ledger is written when the customer first acts
 * (customer_started_at) and at each status, not between the code and the card: those two steps of
 * the page are one here, and the Temporal UI's current details tell them apart.
 */
export const LEDGER_STEPS = ['not_started', 'in_checkout', 'processing', 'done'] as const;
export type LedgerStep = (typeof LEDGER_STEPS)[number];

/** The operators' search: any merchant's carts, every filter optional, newest first (ties by cartId). */
export interface CartSearch {
  cartId?: string;
  merchant?: CartOwner;
  status?: CartStatus;
  step?: LedgerStep;
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
  after?: { createdAtMicros: string; cartId: string };
  limit: number;
}

export interface FoundCart {
  cartId: string;
  platformUuid: string;
  merchantName: string;
  environment: Environment;
  status: CartStatus;
  step: LedgerStep;
  amount: number;
  currency: string;
  createdAt: Date;
  createdAtMicros: string;
}

interface FoundCartRow {
  cart_id: string;
  platform_uuid: string;
  merchant_name: string;
  environment: Environment;
  status: CartStatus;
  customer_started_at: Date | null;
  amount: string;
  currency: string;
  created_at: Date;
  created_at_micros: string;
}

const TERMINAL = ['authorized', 'paid', 'failed', 'cancelled', 'abandoned', 'partially_refunded', 'refunded'] as const;

function ledgerStep(status: CartStatus, customerStartedAt: Date | null): LedgerStep {
  if (status === 'processing') return 'processing';
  if (status !== 'pending') return 'done';
  return customerStartedAt ? 'in_checkout' : 'not_started';
}

/**
 * Each filter narrows one of the indexes: cart_id (primary key), the merchant
 * (carts_merchant_env_created), status (carts_status_created, which a step implies), or none
 * (carts_created); so a page reads about as many rows as it shows, whatever the table's size.
 */
export async function searchCarts(db: Db, search: CartSearch): Promise<FoundCart[]> {
  const { after, step } = search;
  const stepCondition =
    step === 'not_started'
      ? db`and status = 'pending' and customer_started_at is null`
      : step === 'in_checkout'
        ? db`and status = 'pending' and customer_started_at is not null`
        : step === 'processing'
          ? db`and status = 'processing'`
          : step === 'done'
            ? db`and status in ${db(TERMINAL)}`
            : db``;
  const rows = await db<FoundCartRow[]>`
    select cart_id, platform_uuid, merchant_name, environment, status, customer_started_at, amount, currency, created_at,
      (extract(epoch from created_at) * 1000000)::bigint::text as created_at_micros
    from carts
    where true
      ${search.cartId ? db`and cart_id = ${search.cartId}` : db``}
      ${search.merchant ? db`and platform_uuid = ${search.merchant.platformUuid} and environment = ${search.merchant.environment}` : db``}
      ${search.status ? db`and status = ${search.status}` : db``}
      ${stepCondition}
      ${search.createdFrom ? db`and created_at >= ${search.createdFrom}` : db``}
      ${search.createdTo ? db`and created_at < ${search.createdTo}` : db``}
      ${after ? db`and (created_at, cart_id) < (timestamptz 'epoch' + ${after.createdAtMicros}::bigint * interval '1 microsecond', ${after.cartId})` : db``}
    order by created_at desc, cart_id desc
    limit ${search.limit}`;
  return rows.map((r) => ({
    cartId: r.cart_id,
    platformUuid: r.platform_uuid,
    merchantName: r.merchant_name,
    environment: r.environment,
    status: r.status,
    step: ledgerStep(r.status, r.customer_started_at),
    amount: Number(r.amount),
    currency: r.currency,
    createdAt: r.created_at,
    createdAtMicros: r.created_at_micros,
  }));
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

/** Which carts an insight counts: one merchant's in one environment, or (operators) every merchant's. */
export interface InsightScope {
  merchant?: CartOwner;
  /** Carts created at or after this instant. */
  since: Date;
}

const PAID_STATUSES = ['paid', 'partially_refunded', 'refunded'] as const;

const scopeCondition = (db: Db, scope: InsightScope) =>
  db`created_at >= ${scope.since}
    ${scope.merchant ? db`and platform_uuid = ${scope.merchant.platformUuid} and environment = ${scope.merchant.environment}` : db``}`;

/** Sessions created in the scope, per currency: how many, how many were paid (refunded ones included), and what those paid. */
export async function cartTotals(db: Db, scope: InsightScope): Promise<Array<{ currency: string; sessions: number; paid: number; paidAmount: number }>> {
  const rows = await db<{ currency: string; sessions: string; paid: string; paid_amount: string }[]>`
    select currency, count(*) as sessions,
      count(*) filter (where status in ${db(PAID_STATUSES)}) as paid,
      coalesce(sum(amount) filter (where status in ${db(PAID_STATUSES)}), 0) as paid_amount
    from carts where ${scopeCondition(db, scope)}
    group by currency order by currency`;
  return rows.map((r) => ({ currency: r.currency, sessions: Number(r.sessions), paid: Number(r.paid), paidAmount: Number(r.paid_amount) }));
}

/**
 * How many sessions of the scope reached each step as their furthest, by status. A later step
 * implies the earlier ones, and what a session's status and card show counts too: a cart created
 * before migration 019, or whose page write was lost, still counts where its outcome proves it was.
 */
export async function cartFunnel(db: Db, scope: InsightScope): Promise<Array<{ furthest: FunnelStep; status: CartStatus; sessions: number }>> {
  const rows = await db<{ furthest: number; status: CartStatus; sessions: string }[]>`
    select furthest, status, count(*) as sessions from (
      select status, case
        when status in ${db(PAID_STATUSES)} then 5
        when pay_attempted_at is not null or status = 'processing' or payment_brand is not null then 4
        when code_verified_at is not null then 3
        when code_sent_at is not null or failure_code = 'otp_locked' then 2
        when page_opened_at is not null then 1
        else 0 end as furthest
      from carts where ${scopeCondition(db, scope)}
    ) reached
    group by furthest, status`;
  return rows.map((r) => ({ furthest: FUNNEL_STEPS[r.furthest]!, status: r.status, sessions: Number(r.sessions) }));
}

/** The currency of the refunded cart, for the refund ledger's totals (refunds keep no currency of their own). */
export const refundCartCurrencyColumn = (sql: Sql) => sql`(select currency from carts where carts.cart_id = refunds.cart_id)`;
