import { createHash } from 'node:crypto';
import type { TransactionSql } from 'postgres';
import type { CreateCartResponse } from '../core/schemas/cart.js';
import { ApiError } from './errors.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{8,255}$';
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);
/** How long a key remembers its response (DESIGN.md §4). */
const RETENTION = '24 hours';

/** The header's value, or undefined when absent; a malformed one is refused rather than ignored. */
export function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!KEY.test(header)) {
    throw new ApiError('VALIDATION_ERROR', 'The Idempotency-Key header is malformed.', [
      { path: IDEMPOTENCY_HEADER, message: 'must be 8 to 255 visible ASCII characters, e.g. a UUID' },
    ]);
  }
  return header;
}

/** Object keys sorted at every level, so two bodies that differ only in key order or spacing match. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

export type Claim = { claimed: true } | { claimed: false; response: CreateCartResponse };

/**
 * Claims `key` for this request inside the cart's transaction. A concurrent request with the same key
 * blocks on the primary key until ours commits (then it gets our response) or rolls back (then it
 * claims the key itself). A key past its 24 h is taken over as if it were new.
 */
export async function claimIdempotencyKey(tx: TransactionSql, platformUuid: string, key: string, fingerprint: string): Promise<Claim> {
  const claimed = await tx`
    insert into idempotency_keys (platform_uuid, key, fingerprint, expires_at)
    values (${platformUuid}, ${key}, ${fingerprint}, now() + ${RETENTION}::interval)
    on conflict (platform_uuid, key) do update
      set fingerprint = excluded.fingerprint, cart_id = null, response = null, created_at = now(), expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= now()
    returning 1`;
  if (claimed.length > 0) return { claimed: true };
  const [stored] = await tx<{ fingerprint: string; response: CreateCartResponse }[]>`
    select fingerprint, response from idempotency_keys where platform_uuid = ${platformUuid} and key = ${key}`;
  if (!stored || stored.fingerprint !== fingerprint) {
    throw new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body. Use a new key for a new cart.', [
      { path: IDEMPOTENCY_HEADER, message: 'was used with a different body in the last 24 hours' },
    ]);
  }
  return { claimed: false, response: stored.response };
}

export async function storeIdempotentResponse(tx: TransactionSql, platformUuid: string, key: string, response: CreateCartResponse): Promise<void> {
  await tx`
    update idempotency_keys set cart_id = ${response.data.cartId}, response = ${JSON.stringify(response)}::text::json
    where platform_uuid = ${platformUuid} and key = ${key}`;
}
