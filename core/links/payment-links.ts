import type { Environment } from '../config.js';
import { randomToken } from '../crypto.js';
import type { Db } from '../db/client.js';
import type { CartOwner } from '../checkout/cart-ledger.js';
import type { Cart, Store } from '../checkout/cart-schema.js';
import type { PaymentLinkStatus } from './payment-link-schema.js';

/**
 * The one owner of the `payment_links` table (migration 028): a merchant's cart kept once, which
 * every visit of its URL turns into a session of its own (web/checkout/payment-link-route.ts). What
 * the sessions did (visits, paid) is read from the ledger (core/checkout/order-views.ts).
 */

export interface PaymentLinkRow {
  id: string;
  platformUuid: string;
  environment: Environment;
  cartObject: { store: Store; cart: Cart };
  maxUses: number | null;
  expiresAt: Date | null;
  active: boolean;
  createdAt: Date;
  closedAt: Date | null;
}

export interface NewPaymentLink extends CartOwner {
  cartObject: { store: Store; cart: Cart };
  maxUses?: number;
  expiresAt?: Date;
}

const COLUMNS = (db: Db) => db`
  id, platform_uuid as "platformUuid", environment, cart_object as "cartObject", max_uses as "maxUses", expires_at as "expiresAt",
  active, created_at as "createdAt", closed_at as "closedAt"`;

export const newPaymentLinkId = () => `pl_${randomToken(16)}`;

export async function insertPaymentLink(db: Db, link: NewPaymentLink): Promise<PaymentLinkRow> {
  const [row] = await db<PaymentLinkRow[]>`
    insert into payment_links (id, platform_uuid, environment, cart_object, max_uses, expires_at)
    values (${newPaymentLinkId()}, ${link.platformUuid}, ${link.environment}, ${db.json(link.cartObject)}, ${link.maxUses ?? null}, ${link.expiresAt ?? null})
    returning ${COLUMNS(db)}`;
  return row!;
}

/** The owner's newest links, newest first. */
export async function listPaymentLinks(db: Db, owner: CartOwner, limit: number): Promise<PaymentLinkRow[]> {
  return db<PaymentLinkRow[]>`
    select ${COLUMNS(db)} from payment_links
    where platform_uuid = ${owner.platformUuid} and environment = ${owner.environment}
    order by created_at desc, id desc limit ${limit}`;
}

/** The link if it is this owner's, else undefined: another merchant's link and an unknown one look the same. */
export async function findOwnerPaymentLink(db: Db, owner: CartOwner, id: string): Promise<PaymentLinkRow | undefined> {
  const [row] = await db<PaymentLinkRow[]>`
    select ${COLUMNS(db)} from payment_links where id = ${id} and platform_uuid = ${owner.platformUuid} and environment = ${owner.environment}`;
  return row;
}

/** Any merchant's link of this environment: what a customer's visit names. */
export async function findPaymentLink(db: Db, environment: Environment, id: string): Promise<PaymentLinkRow | undefined> {
  const [row] = await db<PaymentLinkRow[]>`select ${COLUMNS(db)} from payment_links where id = ${id} and environment = ${environment}`;
  return row;
}

/** Closes the owner's link for good (idempotent: the first closedAt stays); undefined when it is not the owner's. */
export async function closePaymentLink(db: Db, owner: CartOwner, id: string): Promise<PaymentLinkRow | undefined> {
  const [row] = await db<PaymentLinkRow[]>`
    update payment_links set active = false, closed_at = coalesce(closed_at, now())
    where id = ${id} and platform_uuid = ${owner.platformUuid} and environment = ${owner.environment}
    returning ${COLUMNS(db)}`;
  return row;
}

/** Whether a visit now would open a session: closed first (the merchant's word), then expired, then used up. */
export function paymentLinkStatus(link: Pick<PaymentLinkRow, 'active' | 'expiresAt' | 'maxUses'>, paid: number, now = new Date()): PaymentLinkStatus {
  if (!link.active) return 'closed';
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (link.maxUses !== null && paid >= link.maxUses) return 'used_up';
  return 'open';
}
