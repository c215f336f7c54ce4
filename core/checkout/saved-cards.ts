/**
 * The one owner of the `saved_cards` table (migration 032, docs/saved-cards.md): cards customers chose
 * to keep, by the processor's references, brand, last 4 and expiry. Never a number, never a CVV; the
 * contact only as the keyed digest of its exact form (core/checkout/saved-card-contact.ts).
 */

import { randomToken, type Keyring } from '../crypto.js';
import type { Db, Sql } from '../db/client.js';
import { readContact } from './contact-input.js';
import type { SavedCardReference } from './payment-processor.js';
import { savedCardContactKeys } from './saved-card-contact.js';

/**
 * How long a card saved for a payment that never got its outcome (a worker lost mid-payment) waits
 * before it is removed: far beyond any payment's resolution.
 */
export const PENDING_SAVED_CARD_MS = 24 * 3600_000;

/** What the page shows of a saved card, and how it names it in its form. */
export interface SavedCard {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  lastUsedAt: Date;
}

/** A saved card with the references its charge and its detach need: for the worker only, never a page. */
export interface SavedCardRecord extends SavedCard {
  processor: string;
  reference: SavedCardReference;
}

interface Row {
  id: string;
  processor: string;
  customer_ref: string | null;
  payment_method_ref: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  last_used_at: Date;
}

const toRecord = (r: Row): SavedCardRecord => ({
  id: r.id,
  brand: r.brand,
  last4: r.last4,
  expMonth: r.exp_month,
  expYear: r.exp_year,
  lastUsedAt: r.last_used_at,
  processor: r.processor,
  reference: { ...(r.customer_ref ? { customerRef: r.customer_ref } : {}), paymentMethodRef: r.payment_method_ref },
});

/** A month as a count, to compare with a card's expiry (`exp_year * 12 + exp_month - 1`): a card is valid through its expiry month. */
const monthOf = (now: Date): number => now.getUTCFullYear() * 12 + now.getUTCMonth();

/**
 * The contact's cards the page may offer: saved with an approved payment, not removed, not expired;
 * the most recently used first. `contactKey` is the verified session's (its state's contactKey).
 */
export async function savedCardsOf(sql: Sql, contactKey: string, processor: string, now = new Date()): Promise<SavedCard[]> {
  const month = monthOf(now);
  const rows = await sql<Row[]>`
    select id, processor, customer_ref, payment_method_ref, brand, last4, exp_month, exp_year, last_used_at
    from saved_cards
    where contact_key = ${contactKey} and processor = ${processor} and pending_cart_id is null and removed_at is null
      and exp_year * 12 + exp_month - 1 >= ${month}
    order by last_used_at desc, created_at desc`;
  return rows.map((r) => {
    const { id, brand, last4, expMonth, expYear, lastUsedAt } = toRecord(r);
    return { id, brand, last4, expMonth, expYear, lastUsedAt };
  });
}

/** One of the contact's offerable cards, with its references: a card of another contact is not found. */
export async function findSavedCard(sql: Sql, id: string, contactKey: string, now = new Date()): Promise<SavedCardRecord | undefined> {
  const month = monthOf(now);
  const [row] = await sql<Row[]>`
    select id, processor, customer_ref, payment_method_ref, brand, last4, exp_month, exp_year, last_used_at
    from saved_cards
    where id = ${id} and contact_key = ${contactKey} and pending_cart_id is null and removed_at is null
      and exp_year * 12 + exp_month - 1 >= ${month}`;
  return row && toRecord(row);
}

/** The processor's customer already holding this contact's cards, so a new card joins it. */
export async function customerRefOf(sql: Sql, contactKey: string, processor: string): Promise<string | undefined> {
  const [row] = await sql<{ customer_ref: string }[]>`
    select customer_ref from saved_cards
    where contact_key = ${contactKey} and processor = ${processor} and customer_ref is not null and removed_at is null
    order by created_at desc limit 1`;
  return row?.customer_ref;
}

/**
 * A card saved for the payment of `cartId`, offered nowhere until that payment is approved
 * (confirmSavedCards). Idempotent on the processor's reference: a retried charge saves it once.
 */
export async function recordPendingSavedCard(
  sql: Sql,
  saved: {
    contactKey: string;
    cartId: string;
    processor: string;
    reference: SavedCardReference;
    brand: string;
    last4: string;
    expMonth: number;
    expYear: number;
  },
): Promise<void> {
  await sql`
    insert into saved_cards (id, contact_key, processor, customer_ref, payment_method_ref, brand, last4, exp_month, exp_year, pending_cart_id)
    values (${`sc_${randomToken(18)}`}, ${saved.contactKey}, ${saved.processor}, ${saved.reference.customerRef ?? null},
      ${saved.reference.paymentMethodRef}, ${saved.brand}, ${saved.last4}, ${saved.expMonth}, ${saved.expYear}, ${saved.cartId})
    on conflict (processor, payment_method_ref) do nothing`;
}

/** The payment of `cartId` was approved: the card it saved is offered from now on. */
export async function confirmSavedCards(sql: Sql, cartId: string): Promise<void> {
  await sql`update saved_cards set pending_cart_id = null, last_used_at = now() where pending_cart_id = ${cartId}`;
}

/** The payment of `cartId` was declined: the card it saved is removed, to be detached by the next removal run. */
export async function dropPendingSavedCards(sql: Sql, cartId: string): Promise<void> {
  await sql`update saved_cards set pending_cart_id = null, removed_at = now() where pending_cart_id = ${cartId} and removed_at is null`;
}

export async function markSavedCardUsed(sql: Sql, id: string): Promise<void> {
  await sql`update saved_cards set last_used_at = now() where id = ${id}`;
}

/**
 * The customer's removal (one card, or all when `id` is absent), or an operator's erase: at once no
 * longer offered; the removal run detaches each at the processor and deletes its row. Returns how many.
 */
export async function removeSavedCards(sql: Sql, contactKeys: readonly string[], id?: string): Promise<number> {
  if (contactKeys.length === 0) return 0;
  const removed = id
    ? await sql`update saved_cards set removed_at = now() where id = ${id} and contact_key in ${sql(contactKeys)} and removed_at is null`
    : await sql`update saved_cards set removed_at = now() where contact_key in ${sql(contactKeys)} and removed_at is null`;
  return removed.count;
}

/**
 * Marks removed every card unused for `unusedMs`, past its expiry month, or saved by a payment that
 * never got its outcome within `pendingMs`; then answers every removed card, for its detach.
 */
export async function staleSavedCards(sql: Sql, limits: { unusedMs: number; pendingMs: number }, now = new Date()): Promise<SavedCardRecord[]> {
  const month = monthOf(now);
  await sql`
    update saved_cards set removed_at = now()
    where removed_at is null and (
      last_used_at < ${new Date(now.getTime() - limits.unusedMs)}
      or exp_year * 12 + exp_month - 1 < ${month}
      or (pending_cart_id is not null and created_at < ${new Date(now.getTime() - limits.pendingMs)}))`;
  const rows = await sql<Row[]>`
    select id, processor, customer_ref, payment_method_ref, brand, last4, exp_month, exp_year, last_used_at
    from saved_cards where removed_at is not null order by removed_at limit 500`;
  return rows.map(toRecord);
}

/** Deletes the row of a removed card once the processor detached it. */
export async function deleteSavedCard(db: Db, id: string): Promise<void> {
  await db`delete from saved_cards where id = ${id} and removed_at is not null`;
}

/**
 * The digests a contact typed by an operator may be saved under: its exact form's, and the code limits'
 * fold that cards saved before 1.2 were kept under, under every data key of the keyring, so an erase
 * also finds cards saved before a key rotation. Undefined for what is no email or phone number.
 */
export function contactKeysOf(keyring: Keyring, contact: string): string[] | undefined {
  const read = readContact(contact);
  return read && savedCardContactKeys(keyring, read.contact.address);
}

/**
 * Moves the cards kept under a contact's old key (legacySavedCardContactKey) to its exact key, the
 * first time that contact asks for a code: from then on they are found under the exact key alone.
 */
export async function rekeySavedCards(sql: Sql, from: string, to: string): Promise<number> {
  const moved = await sql`update saved_cards set contact_key = ${to} where contact_key = ${from}`;
  return moved.count;
}
