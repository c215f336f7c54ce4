import type { Environment } from '../config.js';
import type { Db, Sql } from '../db/client.js';
import type { Cart, Store } from './cart-schema.js';
import type { CartStatus } from './session.js';

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
}

export async function insertCart(sql: Sql, row: NewCart): Promise<void> {
  await sql`
    insert into carts (cart_id, platform_uuid, environment, merchant_name, status, currency, amount, store, cart, expires_on, created_at)
    values (${row.cartId}, ${row.platformUuid}, ${row.environment}, ${row.merchantName}, 'pending', ${row.currency}, ${row.amount},
            ${sql.json(row.store)}, ${sql.json(row.cart)}, ${row.expiresOn}, ${row.createdAt})`;
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
  /** The card as brand + last4, once the customer has paid or tried to. */
  payment?: { brand: string; last4: string };
  /** Why the session failed: a decline code or `otp_locked`. */
  failureCode?: string;
}

/** Idempotent, so an activity retry is harmless. */
export async function recordCartStatus(db: Db, change: CartStatusChange): Promise<void> {
  await db`
    update carts set
      status = ${change.status},
      payment_brand = coalesce(${change.payment?.brand ?? null}, payment_brand),
      payment_last4 = coalesce(${change.payment?.last4 ?? null}, payment_last4),
      failure_code = coalesce(${change.failureCode ?? null}, failure_code),
      updated_at = now()
    where cart_id = ${change.cartId}`;
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
});

export async function findCart(db: Db, cartId: string): Promise<LedgerCart | undefined> {
  const [row] = await db<CartRow[]>`
    select platform_uuid, environment, merchant_name, amount, currency, status, store, cart, expires_on from carts where cart_id = ${cartId}`;
  return row && toLedgerCart(row);
}

/** The cart, locked until the transaction ends: one event at a time per cart, so sequences never collide. */
export async function lockCart(tx: Sql, cartId: string): Promise<LedgerCart | undefined> {
  const [row] = await tx<CartRow[]>`
    select platform_uuid, environment, merchant_name, amount, currency, status, store, cart, expires_on from carts where cart_id = ${cartId} for update`;
  return row && toLedgerCart(row);
}
