import type { Sql } from '../db/client.js';
import { refundCartCurrencyColumn } from '../checkout/cart-ledger.js';
import type { Refund, RefundStatus } from './order-schema.js';

/**
 * The one owner of the `refunds` table: every refund asked of a paid order, its reservation of the
 * amount (status pending), and its outcome. Callers hold the cart's row lock (core/checkout/cart-ledger.ts)
 * around anything that reserves or releases an amount, so the sums read here stay true until commit.
 */

export interface StoredRefund extends Refund {
  platformUuid: string;
  processorRefundId: string | null;
  refundedTotalAfter: number | null;
  requestFingerprint: string;
}

interface RefundRow {
  id: string;
  cart_id: string;
  platform_uuid: string;
  amount: string;
  reason: string | null;
  status: RefundStatus;
  failure_code: string | null;
  processor_refund_id: string | null;
  refunded_total_after: string | null;
  request_fingerprint: string;
  created_at: Date;
}

const toRefund = (r: RefundRow): StoredRefund => ({
  id: r.id,
  cartId: r.cart_id,
  platformUuid: r.platform_uuid,
  amount: Number(r.amount),
  reason: r.reason,
  status: r.status,
  failureCode: r.failure_code,
  processorRefundId: r.processor_refund_id,
  refundedTotalAfter: r.refunded_total_after === null ? null : Number(r.refunded_total_after),
  requestFingerprint: r.request_fingerprint,
  createdAt: r.created_at.toISOString(),
});

/** What the merchant sees of a stored refund (the contract's Refund, nothing more). */
export function publicRefund(refund: StoredRefund): Refund {
  return {
    id: refund.id,
    cartId: refund.cartId,
    amount: refund.amount,
    reason: refund.reason,
    status: refund.status,
    failureCode: refund.failureCode,
    createdAt: refund.createdAt,
  };
}

const COLUMNS = (sql: Sql) =>
  sql`id, cart_id, platform_uuid, amount, reason, status, failure_code, processor_refund_id, refunded_total_after, request_fingerprint, created_at`;

export async function findRefund(sql: Sql, refundId: string): Promise<StoredRefund | undefined> {
  const [row] = await sql<RefundRow[]>`select ${COLUMNS(sql)} from refunds where id = ${refundId}`;
  return row && toRefund(row);
}

/** The refund the processor knows by this id (set when it succeeded), whatever its order. */
export async function findRefundByProcessorRefundId(sql: Sql, processorRefundId: string): Promise<StoredRefund | undefined> {
  const [row] = await sql<RefundRow[]>`select ${COLUMNS(sql)} from refunds where processor_refund_id = ${processorRefundId}`;
  return row && toRefund(row);
}

/** The merchant's refund made with this Idempotency-Key, whatever its order. */
export async function findRefundByIdempotencyKey(sql: Sql, platformUuid: string, idempotencyKey: string): Promise<StoredRefund | undefined> {
  const [row] = await sql<RefundRow[]>`
    select ${COLUMNS(sql)} from refunds where platform_uuid = ${platformUuid} and idempotency_key = ${idempotencyKey}`;
  return row && toRefund(row);
}

/** Oldest first. */
export async function listCartRefunds(sql: Sql, cartId: string): Promise<StoredRefund[]> {
  const rows = await sql<RefundRow[]>`select ${COLUMNS(sql)} from refunds where cart_id = ${cartId} order by created_at, id`;
  return rows.map(toRefund);
}

/** Pending and succeeded refunds: what no new refund may take again. */
export async function reservedRefundAmount(tx: Sql, cartId: string): Promise<number> {
  const [row] = await tx<{ total: string }[]>`
    select coalesce(sum(amount), 0)::text as total from refunds where cart_id = ${cartId} and status in ('pending', 'succeeded')`;
  return Number(row!.total);
}

export async function succeededRefundAmount(tx: Sql, cartId: string): Promise<number> {
  const [row] = await tx<{ total: string }[]>`
    select coalesce(sum(amount), 0)::text as total from refunds where cart_id = ${cartId} and status = 'succeeded'`;
  return Number(row!.total);
}

export interface NewRefund {
  id: string;
  cartId: string;
  platformUuid: string;
  amount: number;
  reason: string | null;
  idempotencyKey: string | null;
  requestFingerprint: string;
}

/** Reserves the amount: a pending refund. Throws the unique violation when the merchant's key was just taken by another request. */
export async function insertRefund(tx: Sql, refund: NewRefund): Promise<StoredRefund> {
  const [row] = await tx<RefundRow[]>`
    insert into refunds (id, cart_id, platform_uuid, amount, reason, idempotency_key, request_fingerprint)
    values (${refund.id}, ${refund.cartId}, ${refund.platformUuid}, ${refund.amount}, ${refund.reason}, ${refund.idempotencyKey}, ${refund.requestFingerprint})
    returning ${COLUMNS(tx)}`;
  return toRefund(row!);
}

/** The processor refunded it. Only a pending refund moves; returns the refund as it now stands. */
export async function markRefundSucceeded(
  tx: Sql,
  refundId: string,
  outcome: { processorRefundId: string; refundedTotalAfter: number },
): Promise<StoredRefund | undefined> {
  await tx`
    update refunds set status = 'succeeded', processor_refund_id = ${outcome.processorRefundId},
      refunded_total_after = ${outcome.refundedTotalAfter}, settled_at = now()
    where id = ${refundId} and status = 'pending'`;
  return findRefund(tx, refundId);
}

/** The processor refused it: the reservation is released. Only a pending refund moves. */
export async function markRefundFailed(tx: Sql, refundId: string, failureCode: string): Promise<StoredRefund | undefined> {
  await tx`
    update refunds set status = 'failed', failure_code = ${failureCode}, settled_at = now()
    where id = ${refundId} and status = 'pending'`;
  return findRefund(tx, refundId);
}

/**
 * The processor failed a refund it had accepted (docs/decisions/late-outcomes.md): it counts no more. Only a
 * succeeded refund moves; its processor id and refunded_total_after (what its order_refunded said) are kept.
 */
export async function markRefundReversed(tx: Sql, refundId: string, failureCode: string): Promise<StoredRefund | undefined> {
  await tx`
    update refunds set status = 'failed', failure_code = ${failureCode}
    where id = ${refundId} and status = 'succeeded'`;
  return findRefund(tx, refundId);
}

/**
 * Refunds that succeeded at or after `since`, per currency: one merchant's (a platformUuid is one
 * environment's) or every merchant's. Counted when settled, whenever their order was created.
 */
export async function refundTotals(
  sql: Sql,
  scope: { platformUuid?: string; since: Date },
): Promise<Array<{ currency: string; refunds: number; amount: number }>> {
  const rows = await sql<{ currency: string; refunds: string; amount: string }[]>`
    select ${refundCartCurrencyColumn(sql)} as currency, count(*) as refunds, sum(amount) as amount
    from refunds
    where status = 'succeeded' and settled_at >= ${scope.since}
      ${scope.platformUuid ? sql`and platform_uuid = ${scope.platformUuid}` : sql``}
    group by 1 order by 1`;
  return rows.map((r) => ({ currency: r.currency, refunds: Number(r.refunds), amount: Number(r.amount) }));
}
