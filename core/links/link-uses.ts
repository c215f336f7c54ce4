import type { Db, Sql } from '../db/client.js';
import { recordLinkUseReserved } from '../checkout/cart-ledger.js';
import { OPEN_STATUSES } from '../checkout/session.js';
import type { PaymentLinkStatus } from './payment-link-schema.js';
import { paymentLinkStatus } from './payment-links.js';

/**
 * The one place a payment link's limits are enforced (docs/payment-links.md, "One lineage"). Every
 * session minted from a link, a retry of one of its sessions or a recovery of one carries the link's
 * id (`carts.payment_link_id`), so each of them is held to the link's limits here:
 *
 * - **Minting** (a visit of the link, a retry, a recovery) asks `mintRefusal` first: a closed,
 *   expired or used-up link mints nothing.
 * - **Pay** reserves one of the link's uses with `reserveLinkUse`, atomically: the link's row is
 *   locked while the uses held are counted and this session's reservation is written, so two Pays
 *   racing for the last use are decided one after the other and never both let through.
 *
 * A use is held by a session once it is paid (`paid_at`), and by a session whose Pay was let through
 * (`link_use_reserved_at`, migration 036) only while it is open (pending, processing). So a declined
 * or failed payment, and a session that ends unpaid (cancelled, abandoned), release their use by the
 * status the session's activities record, with no release of their own to forget.
 */

/** Why a link mints no session and takes no Pay: every status but open. */
export type LinkRefusal = Exclude<PaymentLinkStatus, 'open'>;

/** How a refusing link is named to the merchant, in an error's message. */
export const LINK_REFUSAL_TEXT = { closed: 'closed', expired: 'expired', used_up: 'used up (maxUses paid sessions)' } as const satisfies Record<
  LinkRefusal,
  string
>;

interface LinkLimits {
  active: boolean;
  expiresAt: Date | null;
  maxUses: number | null;
}

/**
 * The link's standing now, counting the uses held by its sessions other than `exceptCart`. With
 * `lock`, the link's row stays locked until the transaction ends; the uses are counted by a statement
 * of their own, after the lock is held, so they include every reservation committed before it.
 */
async function standing(sql: Sql, linkId: string, options: { lock: boolean; exceptCart?: string }): Promise<LinkRefusal | undefined> {
  const [link] = await sql<LinkLimits[]>`
    select active, expires_at as "expiresAt", max_uses as "maxUses" from payment_links where id = ${linkId} ${options.lock ? sql`for update` : sql``}`;
  // The foreign key keeps a link while any session names it: a missing one sells nothing.
  if (!link) return 'closed';
  const held = link.maxUses === null ? 0 : await usesHeld(sql, linkId, options.exceptCart);
  const status = paymentLinkStatus(link, held);
  return status === 'open' ? undefined : status;
}

/** The link's uses held now: its paid sessions, and its open ones whose Pay was let through; `exceptCart`'s own not counted. */
async function usesHeld(sql: Sql, linkId: string, exceptCart: string | undefined): Promise<number> {
  const [row] = await sql<{ held: number }[]>`
    select count(*)::int as held from carts
    where payment_link_id = ${linkId} and cart_id is distinct from ${exceptCart ?? null}
      and (paid_at is not null or (link_use_reserved_at is not null and status in ${sql([...OPEN_STATUSES])}))`;
  return row!.held;
}

/** Whether a new session may be minted in the link's lineage: undefined when it may (or when there is no link), else why not. */
export async function mintRefusal(db: Db, paymentLinkId: string | null | undefined): Promise<LinkRefusal | undefined> {
  return paymentLinkId ? standing(db, paymentLinkId, { lock: false }) : undefined;
}

/**
 * Called by the page's Pay just before the payment is handed to the session: reserves one of the
 * link's uses for this session, or answers why the link refuses it. A session that is no link's (its
 * ledger row's payment_link_id, which never changes) is let through without a query, so Pay costs
 * every other cart nothing. A second Pay of the same session finds its own reservation and keeps it.
 */
export async function reserveLinkUse(db: Db, session: { cartId: string; paymentLinkId: string | null }): Promise<LinkRefusal | undefined> {
  const { cartId, paymentLinkId } = session;
  if (!paymentLinkId) return undefined;
  return db.begin(async (tx) => {
    const refusal = await standing(tx, paymentLinkId, { lock: true, exceptCart: cartId });
    if (!refusal) await recordLinkUseReserved(tx, cartId);
    return refusal;
  });
}
