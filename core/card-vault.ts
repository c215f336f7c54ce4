import { decrypt, encrypt, randomToken } from './crypto.js';
import type { Db } from './db/client.js';
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

/** Deletes the card once the authorization has an outcome. */
export async function deleteCard(db: Db, token: string): Promise<void> {
  await db`delete from card_vault where token = ${token}`;
}

export async function purgeExpiredCards(db: Db): Promise<number> {
  const rows = await db`delete from card_vault where expires_at <= now()`;
  return rows.count;
}
