import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import { findOwnerCart, listOwnerCarts } from '../checkout/order-views.js';
import type { CartStatus } from '../checkout/session.js';
import { listOrderEventDeliveries } from '../webhooks/event-history.js';
import { decodeOrderCursor, encodeOrderCursor } from './order-cursor.js';
import { orderDataOf, type OrderContext, type OrderData } from '../checkout/order-model.js';
import { ORDER_LIMITS, type Order } from './order-schema.js';
import { listCartRefunds, publicRefund } from './refund-ledger.js';

/**
 * A merchant's orders, composed from the tables' owners: the ledger (carts), the refunds and the
 * webhook events with their attempts. Always scoped to one merchant and one environment, so another
 * merchant's cart is simply not there.
 */

export interface OrderOwner {
  platformUuid: string;
  environment: Environment;
}

export interface OrderFilters {
  status?: CartStatus;
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
  extra?: { key: string; value: string };
  /** 1 to ORDER_LIMITS.pageSize; larger values are capped. */
  limit?: number;
  /** A nextCursor this function returned. */
  cursor?: string;
}

/** What a merchant is told for a cartId that is not one of its orders in this key's environment (never whose it is). */
export function orderNotFoundMessage(environment: Environment): string {
  return `No ${environment} order of yours has this cartId. Check the cartId and the API key's environment.`;
}

export class InvalidOrderCursorError extends Error {
  override name = 'InvalidOrderCursorError';
  constructor() {
    super('The cursor is not one this API returned: pass nextCursor from the previous page as it is.');
  }
}

/** Newest first; `nextCursor` is null on the last page. */
export async function listOrders(
  db: Db,
  ctx: OrderContext,
  merchant: OrderOwner,
  filters: OrderFilters = {},
): Promise<{ orders: OrderData[]; nextCursor: string | null }> {
  const limit = Math.max(1, Math.min(Math.trunc(filters.limit ?? ORDER_LIMITS.defaultPageSize), ORDER_LIMITS.pageSize));
  const after = filters.cursor === undefined ? undefined : decodeOrderCursor(filters.cursor);
  if (filters.cursor !== undefined && !after) throw new InvalidOrderCursorError();
  // One more than asked tells whether another page follows without a count.
  const rows = await listOwnerCarts(db, merchant, {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.createdFrom ? { createdFrom: filters.createdFrom } : {}),
    ...(filters.createdTo ? { createdTo: filters.createdTo } : {}),
    ...(filters.extra ? { extra: filters.extra } : {}),
    ...(after ? { after } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    orders: page.map((row) => orderDataOf(row, ctx)),
    nextCursor: rows.length > limit && last ? encodeOrderCursor({ createdAtMicros: last.createdAtMicros, cartId: last.cartId }) : null,
  };
}

/** The order, or undefined when it is not this merchant's in this environment (the API answers 404 either way). */
export async function getOrder(db: Db, ctx: OrderContext, merchant: OrderOwner, cartId: string): Promise<Order | undefined> {
  // One snapshot: read one after the other, a refund settling in between showed as succeeded beside the
  // order's status and refundedTotal from before it.
  const read = await db.begin('isolation level repeatable read read only', async (tx) => {
    const found = await findOwnerCart(tx, merchant, cartId);
    if (!found) return undefined;
    const [refunds, webhooks] = await Promise.all([listCartRefunds(tx, cartId), listOrderEventDeliveries(tx, cartId, ORDER_LIMITS.responseExcerpt)]);
    return { row: found, refunds, webhooks };
  });
  if (!read) return undefined;
  const { row, refunds, webhooks } = read;
  return {
    ...orderDataOf(row, ctx),
    expiresOn: row.expiresOn.toISOString(),
    refunds: refunds.map(publicRefund),
    webhooks,
  };
}
