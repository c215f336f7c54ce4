/** The one owner of the `card_vault` table: a card sealed between the customer pressing Pay and the end of its session. */

import { randomToken, type Keyring } from '../crypto.js';
import type { Db, Sql } from '../db/client.js';
import type { Card } from './cards.js';

/** Long enough to cover an authorization with its retries, short enough that nothing lingers. */
export const VAULT_TTL_MS = 15 * 60_000;

/** Seals the card under the newest data key and returns the token the workflow may carry instead. */
export async function storeCard(db: Db, keyring: Keyring, cartId: string, card: Card): Promise<{ token: string }> {
  const token = `card_${randomToken(18)}`;
  const sealed = keyring.seal(JSON.stringify(card));
  await db`
    insert into card_vault (token, cart_id, sealed, expires_at)
    values (${token}, ${cartId}, ${sealed}, ${new Date(Date.now() + VAULT_TTL_MS)})`;
  return { token };
}

/** Reads the card without removing it: the authorization may be retried. */
export async function readCard(db: Db, keyring: Keyring, token: string): Promise<Card | undefined> {
  const [row] = await db<{ sealed: Buffer }[]>`select sealed from card_vault where token = ${token} and expires_at > now()`;
  return row ? (JSON.parse(keyring.open(row.sealed)) as Card) : undefined;
}

/** Deletes one card: the page stored it, then the workflow refused the payment. */
export async function deleteCard(db: Db, token: string): Promise<void> {
  await db`delete from card_vault where token = ${token}`;
}

/** Removes every card the cart left in the vault: after the authorization, or when it never paid. */
export async function discardCartCards(db: Sql, cartId: string): Promise<void> {
  await db`delete from card_vault where cart_id = ${cartId}`;
}

/** Re-seals with the newest key every card it did not seal; returns how many. Running it twice changes nothing. */
export async function resealCards(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ token: string; sealed: Buffer }[]>`select token, sealed from card_vault`;
  let resealed = 0;
  for (const row of rows) {
    if (keyring.sealedWith(row.sealed) === keyring.sealingKeyId) continue;
    const updated = await db`update card_vault set sealed = ${keyring.seal(keyring.open(row.sealed))} where token = ${row.token} and sealed = ${row.sealed}`;
    resealed += updated.count;
  }
  return resealed;
}

/** Deletes every card stored longer ago than `ageMs`; returns how many. */
export async function purgeCardsOlderThan(db: Db, ageMs: number): Promise<number> {
  const rows = await db`delete from card_vault where created_at < now() - make_interval(secs => ${ageMs / 1000})`;
  return rows.count;
}
