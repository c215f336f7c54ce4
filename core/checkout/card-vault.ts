/** The one owner of the `card_vault` table: a card sealed between the customer pressing Pay and the end of its session. */

import { decrypt, encrypt, randomToken } from '../crypto.js';
import type { Db } from '../db/client.js';
import type { Card } from './cards.js';

/** Long enough to cover an authorization with its retries, short enough that nothing lingers. */
export const VAULT_TTL_MS = 15 * 60_000;

/** Seals the card under the data key and returns the token the workflow may carry instead. */
export async function storeCard(db: Db, key: Buffer, cartId: string, card: Card): Promise<{ token: string }> {
  const token = `card_${randomToken(18)}`;
  const sealed = encrypt(key, JSON.stringify(card));
  await db`
    insert into card_vault (token, cart_id, sealed, expires_at)
    values (${token}, ${cartId}, ${sealed}, ${new Date(Date.now() + VAULT_TTL_MS)})`;
  return { token };
}

/** Reads the card without removing it: the authorization may be retried. */
export async function readCard(db: Db, key: Buffer, token: string): Promise<Card | undefined> {
  const [row] = await db<{ sealed: Buffer }[]>`select sealed from card_vault where token = ${token} and expires_at > now()`;
  return row ? (JSON.parse(decrypt(key, row.sealed)) as Card) : undefined;
}

/** Deletes one card: the page stored it, then the workflow refused the payment. */
export async function deleteCard(db: Db, token: string): Promise<void> {
  await db`delete from card_vault where token = ${token}`;
}

/** Removes every card the cart left in the vault: after the authorization, or when it never paid. */
export async function discardCartCards(db: Db, cartId: string): Promise<void> {
  await db`delete from card_vault where cart_id = ${cartId}`;
}

/** Deletes every card stored longer ago than `ageMs`; returns how many. */
export async function purgeCardsOlderThan(db: Db, ageMs: number): Promise<number> {
  const rows = await db`delete from card_vault where created_at < now() - make_interval(secs => ${ageMs / 1000})`;
  return rows.count;
}
