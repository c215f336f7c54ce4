import { createHash } from 'node:crypto';
import type { Db, Sql } from './db/client.js';

/**
 * The one owner of the `idempotency_keys` table. A key is claimed with no response, and the response
 * stored once the request has succeeded; a claim whose request failed is released. Nothing holds a
 * transaction in between (docs/decisions/create-cart-consistency.md): a concurrent request with the
 * same key sees the claim `pending` and asks again until it is answered or released.
 */

/** Object keys sorted at every level, so two bodies that differ only in key order or spacing match. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What makes two requests under one key the same request, as SHA-256 of their canonical JSON: a
 * create-cart body, a capture, void or expire (api/merchant/idempotency.ts), a refund
 * (core/orders/request-refund.ts). Stored with the key, and compared when the key comes again.
 */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** How long a key remembers its response. */
const RETENTION = '24 hours';
/**
 * A claim still unanswered after this was left by a process that died mid-request: far longer than a
 * create-cart can take (its Temporal start has a 3 s deadline), so it is taken over as if it were new.
 */
const ABANDONED_AFTER = '30 seconds';

/**
 * Whose keys: the merchant, and who called for it. `caller` is `api_key` for requests that carried
 * the merchant's API key, and `public:<client address>` for the others, so a stranger's key never
 * collides with the merchant's nor replays its response.
 */
export interface KeyScope {
  platformUuid: string;
  caller: string;
}

export type Claim<Response> = { outcome: 'claimed' } | { outcome: 'replay'; response: Response } | { outcome: 'pending' } | { outcome: 'conflict' };

/** Claims `key` for a request with this fingerprint; a key past its 24 h, or abandoned unanswered, is taken over as if it were new. */
export async function claimIdempotencyKey<Response>(sql: Sql, scope: KeyScope, key: string, fingerprint: string): Promise<Claim<Response>> {
  const claimed = await sql`
    insert into idempotency_keys (platform_uuid, caller, key, fingerprint, expires_at)
    values (${scope.platformUuid}, ${scope.caller}, ${key}, ${fingerprint}, now() + ${RETENTION}::interval)
    on conflict (platform_uuid, caller, key) do update
      set fingerprint = excluded.fingerprint, cart_id = null, response = null, created_at = now(), expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= now()
        or (idempotency_keys.response is null and idempotency_keys.created_at < now() - ${ABANDONED_AFTER}::interval)
    returning 1`;
  if (claimed.length > 0) return { outcome: 'claimed' };
  const [stored] = await sql<{ fingerprint: string; response: Response | null }[]>`
    select fingerprint, response from idempotency_keys where platform_uuid = ${scope.platformUuid} and caller = ${scope.caller} and key = ${key}`;
  // Released between our insert and this read: the next claim may well be ours.
  if (!stored) return { outcome: 'pending' };
  if (stored.fingerprint !== fingerprint) return { outcome: 'conflict' };
  return stored.response === null ? { outcome: 'pending' } : { outcome: 'replay', response: stored.response };
}

/** Gives back a claim whose request failed, so a retry with the same key is a new request. */
export async function releaseIdempotencyKey(sql: Sql, scope: KeyScope, key: string): Promise<void> {
  await sql`delete from idempotency_keys where platform_uuid = ${scope.platformUuid} and caller = ${scope.caller} and key = ${key} and response is null`;
}

/** Stored as json text, not jsonb: a replay must be byte for byte the first response, key order included. */
export async function storeIdempotentResponse(tx: Sql, scope: KeyScope, key: string, cartId: string, response: unknown): Promise<void> {
  await tx`
    update idempotency_keys set cart_id = ${cartId}, response = ${JSON.stringify(response)}::text::json
    where platform_uuid = ${scope.platformUuid} and caller = ${scope.caller} and key = ${key}`;
}

/**
 * A key of the service's own, not a caller's: what answers a request that is the same whoever sends it
 * and with whatever Idempotency-Key (the capture of an order, keyed by its cartId). `caller` names it
 * (`capture`), a value no HTTP caller has (api_key, public:<address>), so the merchant's keys never meet
 * it; `fingerprint` says which request it answers (the captured amount).
 */
export interface KeptAnswer<Response> {
  fingerprint: string;
  response: Response;
}

/**
 * Keeps `response` as the answer to `key`, unless one is kept already (another request got there first,
 * or this is a repeat): then that one is returned, with `ours` false, so concurrent requests all answer
 * the same bytes. Kept 24 hours, as a caller's key.
 */
export async function keepAnswer<Response>(
  sql: Sql,
  scope: KeyScope,
  key: string,
  answer: KeptAnswer<Response> & { cartId: string },
): Promise<KeptAnswer<Response> & { ours: boolean }> {
  const inserted = await sql`
    insert into idempotency_keys (platform_uuid, caller, key, fingerprint, cart_id, response, expires_at)
    values (${scope.platformUuid}, ${scope.caller}, ${key}, ${answer.fingerprint}, ${answer.cartId},
      ${JSON.stringify(answer.response)}::text::json, now() + ${RETENTION}::interval)
    on conflict (platform_uuid, caller, key) do update
      set fingerprint = excluded.fingerprint, cart_id = excluded.cart_id, response = excluded.response, created_at = now(), expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= now()
    returning 1`;
  if (inserted.length > 0) return { fingerprint: answer.fingerprint, response: answer.response, ours: true };
  const earlier = await findKeptAnswer<Response>(sql, scope, key);
  return earlier ? { ...earlier, ours: false } : { fingerprint: answer.fingerprint, response: answer.response, ours: false };
}

/** The answer kept for `key` (keepAnswer), while it is kept. */
export async function findKeptAnswer<Response>(sql: Sql, scope: KeyScope, key: string): Promise<KeptAnswer<Response> | undefined> {
  const [row] = await sql<{ fingerprint: string; response: Response }[]>`
    select fingerprint, response from idempotency_keys
    where platform_uuid = ${scope.platformUuid} and caller = ${scope.caller} and key = ${key} and response is not null and expires_at > now()`;
  return row;
}

export async function pruneExpiredIdempotencyKeys(db: Db): Promise<void> {
  await db`delete from idempotency_keys where expires_at < now()`;
}
