import type { Environment } from '../config.js';
import type { Db, Sql } from '../db/client.js';
import type { CartOwner } from './cart-ledger.js';
import type { Cart } from './cart-schema.js';
import type { CartProvenance } from './cart-provenance.js';
import type { ThreeDSecureResult } from './payment-processor.js';
import type { CancelledBy, CartStatus } from './session.js';
import type { DisputeStatus } from './dispute-model.js';

/**
 * The merchant's orders as the `carts` ledger (./cart-ledger.ts) holds them: one owner's list, one
 * order, and one order locked for a refund's reservation or settlement.
 */

/** A cart as the merchant's order views need it. */
export interface OrderRow {
  cartId: string;
  platformUuid: string;
  environment: Environment;
  status: CartStatus;
  amount: number;
  currency: string;
  refundedAmount: number;
  /** What was captured (minor units): the amount once paid automatically, a manual capture's amount, or null before any capture. */
  capturedAmount: number | null;
  payment: { brand: string; last4: string; threeDSecure?: { result: ThreeDSecureResult }; savedCard: boolean } | null;
  failureCode: string | null;
  cancelledBy: CancelledBy | null;
  /** The verified contact, sealed (core/checkout/customer-seal.ts); null before the code was verified. */
  customerSealed: Buffer | null;
  cart: Cart;
  expiresOn: Date;
  createdAt: Date;
  paidAt: Date | null;
  /** createdAt in microseconds since the epoch (decimal digits), PostgreSQL's precision, for list cursors. */
  createdAtMicros: string;
  createdWith: CartProvenance;
  /** The payment link the session was minted from (core/links/payment-links.ts); null for create-cart's own carts. */
  paymentLinkId: string | null;
  /** The cart this session retries; null for a cart the merchant created. */
  retryOf: string | null;
  /** The first cart of the retry chain (migration 029); null with retryOf. */
  retryRoot: string | null;
  /** The abandoned cart whose recovery link opened this session (./recovery-token.ts); null otherwise. */
  recoveredFrom: string | null;
  /** Whether the session descends from a recovery (one, or a retry made since): it offers none of its own (./cart-recovery.ts). */
  afterRecovery: boolean;
  /** The order's latest dispute (./disputes.ts); null when it has none. */
  dispute: OrderDispute | null;
  /** When the processor warned the charge is likely fraudulent; null when it never did. */
  earlyFraudWarningAt: Date | null;
}

export interface OrderDispute {
  id: string;
  amount: number;
  reason: string;
  status: DisputeStatus;
  evidenceDueBy: Date;
}

interface OrderDbRow {
  cart_id: string;
  platform_uuid: string;
  environment: Environment;
  status: CartStatus;
  amount: string;
  currency: string;
  refunded_amount: string;
  captured_amount: string | null;
  payment_brand: string | null;
  payment_last4: string | null;
  three_d_secure: ThreeDSecureResult | null;
  paid_with_saved_card: boolean | null;
  failure_code: string | null;
  cancelled_by: CancelledBy | null;
  customer_sealed: Buffer | null;
  cart: Cart;
  expires_on: Date;
  created_at: Date;
  paid_at: Date | null;
  created_at_micros: string;
  created_with: CartProvenance;
  payment_link_id: string | null;
  retry_of: string | null;
  retry_root: string | null;
  recovered_from: string | null;
  after_recovery: boolean;
  early_fraud_warning_at: Date | null;
  dispute: { id: string; amount: number; reason: string; status: DisputeStatus; evidence_due_by: string } | null;
}

/** Statuses of an order whose charge was captured; without a recorded manual capture, it was captured in full. */
const CAPTURED_IN_FULL: ReadonlySet<CartStatus> = new Set(['paid', 'partially_refunded', 'refunded']);

const toOrderRow = (r: OrderDbRow): OrderRow => ({
  cartId: r.cart_id,
  platformUuid: r.platform_uuid,
  environment: r.environment,
  status: r.status,
  amount: Number(r.amount),
  currency: r.currency,
  refundedAmount: Number(r.refunded_amount),
  capturedAmount: r.captured_amount !== null ? Number(r.captured_amount) : CAPTURED_IN_FULL.has(r.status) ? Number(r.amount) : null,
  payment:
    r.payment_brand && r.payment_last4
      ? {
          brand: r.payment_brand,
          last4: r.payment_last4,
          ...(r.three_d_secure ? { threeDSecure: { result: r.three_d_secure } } : {}),
          savedCard: r.paid_with_saved_card ?? false,
        }
      : null,
  failureCode: r.failure_code,
  cancelledBy: r.cancelled_by,
  customerSealed: r.customer_sealed,
  cart: r.cart,
  expiresOn: r.expires_on,
  createdAt: r.created_at,
  paidAt: r.paid_at,
  createdAtMicros: r.created_at_micros,
  createdWith: r.created_with,
  paymentLinkId: r.payment_link_id,
  retryOf: r.retry_of,
  retryRoot: r.retry_root,
  recoveredFrom: r.recovered_from,
  afterRecovery: r.after_recovery,
  dispute: r.dispute && {
    id: r.dispute.id,
    amount: Number(r.dispute.amount),
    reason: r.dispute.reason,
    status: r.dispute.status,
    evidenceDueBy: new Date(r.dispute.evidence_due_by),
  },
  earlyFraudWarningAt: r.early_fraud_warning_at,
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
  cart_id, platform_uuid, environment, status, amount, currency, refunded_amount, captured_amount, payment_brand, payment_last4, three_d_secure,
  paid_with_saved_card, failure_code, cancelled_by, customer_sealed, cart, expires_on, created_at, paid_at, created_with, payment_link_id, retry_of, retry_root, recovered_from, after_recovery,
  early_fraud_warning_at,
  (select json_build_object('id', d.id, 'amount', d.amount, 'reason', d.reason, 'status', d.status, 'evidence_due_by', d.evidence_due_by)
     from disputes d where d.cart_id = carts.cart_id order by d.opened_at desc limit 1) as dispute,
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
export async function findOwnerCart(db: Sql, owner: CartOwner, cartId: string): Promise<OrderRow | undefined> {
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

/** Any owner's cart, locked until the transaction ends: what a cart's event is built from (core/webhooks/cart-events.ts). */
export async function lockOrder(tx: Sql, cartId: string): Promise<OrderRow | undefined> {
  const [row] = await tx<OrderDbRow[]>`select ${ORDER_COLUMNS(tx)} from carts where cart_id = ${cartId} for update`;
  return row && toOrderRow(row);
}

/** What the sessions of payment links did: opened (a visit let through) and paid (paid_at set: paid, or authorized), by link id. */
export async function paymentLinkSessionCounts(db: Db, linkIds: readonly string[]): Promise<Map<string, { visits: number; paid: number }>> {
  if (linkIds.length === 0) return new Map();
  const rows = await db<{ linkId: string; visits: number; paid: number }[]>`
    select payment_link_id as "linkId", count(*)::int as visits, count(paid_at)::int as paid
    from carts where payment_link_id in ${db(linkIds as string[])} group by payment_link_id`;
  return new Map(rows.map((r) => [r.linkId, { visits: r.visits, paid: r.paid }]));
}

/** The order whose approved charge has this processor reference (Stripe: the PaymentIntent id), for the processor's events. */
export async function findOrderByPaymentReference(sql: Sql, reference: string): Promise<OrderRow | undefined> {
  const [row] = await sql<OrderDbRow[]>`select ${ORDER_COLUMNS(sql)} from carts where payment_reference = ${reference}`;
  return row && toOrderRow(row);
}

/** One order by its cartId, whoever owns it: for the processor's events and the sandbox's helpers, which name no merchant. */
export async function findOrder(sql: Sql, cartId: string): Promise<OrderRow | undefined> {
  const [row] = await sql<OrderDbRow[]>`select ${ORDER_COLUMNS(sql)} from carts where cart_id = ${cartId}`;
  return row && toOrderRow(row);
}
