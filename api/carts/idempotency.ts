import { createHash } from 'node:crypto';
import type { CreateCartResponse } from '../../core/checkout/cart-schema.js';
import type { Sql } from '../../core/db/client.js';
import { claimIdempotencyKey } from '../../core/idempotency-keys.js';
import { ApiError } from '../errors.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{8,255}$';
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

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

/**
 * Claims `key` for this request inside the cart's transaction (core/idempotency-keys.ts): a fresh key
 * is ours, a repeat with the same body replays the first response, another body is a conflict.
 */
export async function claimKey(tx: Sql, platformUuid: string, key: string, fingerprint: string): Promise<{ replay?: CreateCartResponse }> {
  const claim = await claimIdempotencyKey<CreateCartResponse>(tx, platformUuid, key, fingerprint);
  if (claim.outcome === 'conflict') {
    throw new ApiError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body. Use a new key for a new cart.', [
      { path: IDEMPOTENCY_HEADER, message: 'was used with a different body in the last 24 hours' },
    ]);
  }
  return claim.outcome === 'replay' ? { replay: claim.response } : {};
}
