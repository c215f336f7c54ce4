import type { Db } from '../db/client.js';
import type { CartOwner } from '../checkout/cart-ledger.js';
import { paymentLinkSessionCounts } from '../checkout/order-views.js';
import { PAYMENT_LINK_LIMITS, type PaymentLink } from './payment-link-schema.js';
import { findOwnerPaymentLink, listPaymentLinks, paymentLinkStatus, type PaymentLinkRow } from './payment-links.js';

/**
 * A merchant's payment links as the merchant API and the dashboard show them: the link as created,
 * with what its sessions did (visits, paid) and so whether a visit would open one now.
 */

/** `{CHECKOUT_BASE_URL}/l/<id>`: where the customer goes (web/checkout/payment-link-route.ts). */
export const paymentLinkUrl = (checkoutBaseUrl: string, id: string) => `${checkoutBaseUrl}/l/${id}`;

export function paymentLinkOf(row: PaymentLinkRow, counts: { visits: number; paid: number } | undefined, checkoutBaseUrl: string): PaymentLink {
  const { visits, paid } = counts ?? { visits: 0, paid: 0 };
  return {
    id: row.id,
    url: paymentLinkUrl(checkoutBaseUrl, row.id),
    active: row.active,
    status: paymentLinkStatus(row, paid),
    cartObject: row.cartObject,
    maxUses: row.maxUses,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    visits,
    paid,
    createdAt: row.createdAt.toISOString(),
    closedAt: row.closedAt?.toISOString() ?? null,
  };
}

export async function merchantPaymentLinks(db: Db, owner: CartOwner, checkoutBaseUrl: string): Promise<PaymentLink[]> {
  const rows = await listPaymentLinks(db, owner, PAYMENT_LINK_LIMITS.listSize);
  const counts = await paymentLinkSessionCounts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => paymentLinkOf(row, counts.get(row.id), checkoutBaseUrl));
}

/** The owner's link with its counts; undefined when it is not the owner's. */
export async function merchantPaymentLink(db: Db, owner: CartOwner, id: string, checkoutBaseUrl: string): Promise<PaymentLink | undefined> {
  const row = await findOwnerPaymentLink(db, owner, id);
  return row && withCounts(db, row, checkoutBaseUrl);
}

export async function withCounts(db: Db, row: PaymentLinkRow, checkoutBaseUrl: string): Promise<PaymentLink> {
  const counts = await paymentLinkSessionCounts(db, [row.id]);
  return paymentLinkOf(row, counts.get(row.id), checkoutBaseUrl);
}
