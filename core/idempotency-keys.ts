import type { Db, Sql } from './db/client.js';

/**
 * The one owner of the `idempotency_keys` table. A key is claimed inside the caller's transaction,
 * so a concurrent request with the same key blocks on the primary key until the first commits (then
 * it reads the stored response) or rolls back (then it claims the key itself).
 */

/** How long a key remembers its response. */
const RETENTION = '24 hours';

export type Claim<Response> = { outcome: 'claimed' } | { outcome: 'replay'; response: Response } | { outcome: 'conflict' };

/** Claims `key` for a request with this fingerprint; a key past its 24 h is taken over as if it were new. */
export async function claimIdempotencyKey<Response>(tx: Sql, scope: string, key: string, fingerprint: string): Promise<Claim<Response>> {
  const claimed = await tx`
    insert into idempotency_keys (platform_uuid, key, fingerprint, expires_at)
    values (${scope}, ${key}, ${fingerprint}, now() + ${RETENTION}::interval)
    on conflict (platform_uuid, key) do update
      set fingerprint = excluded.fingerprint, cart_id = null, response = null, created_at = now(), expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= now()
    returning 1`;
  if (claimed.length > 0) return { outcome: 'claimed' };
  const [stored] = await tx<{ fingerprint: string; response: Response }[]>`
    select fingerprint, response from idempotency_keys where platform_uuid = ${scope} and key = ${key}`;
  if (!stored || stored.fingerprint !== fingerprint) return { outcome: 'conflict' };
  return { outcome: 'replay', response: stored.response };
}

/** Stored as json text, not jsonb: a replay must be byte for byte the first response, key order included. */
export async function storeIdempotentResponse(tx: Sql, scope: string, key: string, cartId: string, response: unknown): Promise<void> {
  await tx`
    update idempotency_keys set cart_id = ${cartId}, response = ${JSON.stringify(response)}::text::json
    where platform_uuid = ${scope} and key = ${key}`;
}

export async function pruneExpiredIdempotencyKeys(db: Db): Promise<void> {
  await db`delete from idempotency_keys where expires_at < now()`;
}
