import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../config.js';
import type { Db } from '../db/client.js';
import { findActiveApiKeyId, findMerchantByApiKey, replaceApiKey, setRequireApiKeyForCarts, type StoredApiKey } from './merchant-store.js';
import { getMerchant, MerchantNotFoundError, type MerchantSummary } from './merchants.js';

/**
 * A merchant's API key: issued, stored as a digest, checked, rotated and revoked; and whether
 * create-cart requires it.
 */

/** Random characters of the key kept for display: 24 of its 256 bits, enough to tell keys apart. */
const API_KEY_PREFIX_CHARS = 4;
const API_KEY_PATTERN = /^sk_(sandbox|production)_[A-Za-z0-9_-]{43}$/;

/** A merchant API key: `sk_<environment>_` + base64url of 32 random bytes. */
export function newApiKey(environment: Environment): string {
  return `sk_${environment}_${randomBytes(32).toString('base64url')}`;
}

/**
 * SHA-256, not an HMAC under the keyring: the key is 256 random bits, so its digest cannot be
 * reversed by guessing, and a digest does not depend on a data key that operators rotate.
 */
export function apiKeyHash(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey, 'utf8').digest();
}

/**
 * `sk_<environment>_` and the first random characters. Found from the front: base64url has `_` too, so
 * the last underscore can sit deep inside the random part.
 */
export function apiKeyPrefix(apiKey: string): string {
  return apiKey.slice(0, apiKey.indexOf('_', 'sk_'.length) + 1 + API_KEY_PREFIX_CHARS);
}

export function storedApiKey(apiKey: string): StoredApiKey {
  return { hash: apiKeyHash(apiKey), prefix: apiKeyPrefix(apiKey) };
}

/** Whether the key presented is the one whose digest is stored; constant time (both are 32-byte digests). */
export function apiKeyMatches(presented: string | undefined, storedHash: Buffer | null): boolean {
  if (!presented || !storedHash || storedHash.length !== 32) return false;
  return timingSafeEqual(apiKeyHash(presented), storedHash);
}

/** Who an API key (or a dashboard session made from one) stands for, and which key: a session names the key, never holds it. */
export interface KeyedMerchant {
  platformUuid: string;
  environment: Environment;
  keyId: string;
}

/** The active merchant of this environment whose active API key this is; undefined for anything else. */
export async function authenticateApiKey(db: Db, presented: string | undefined, environment: Environment): Promise<KeyedMerchant | undefined> {
  const format = presented ? API_KEY_PATTERN.exec(presented) : null;
  if (!presented || !format || format[1] !== environment) return undefined;
  const row = await findMerchantByApiKey(db, { hash: apiKeyHash(presented) });
  if (!row || !apiKeyMatches(presented, row.keyHash) || row.environment !== environment || row.status !== 'active') return undefined;
  return { platformUuid: row.platformUuid, environment: row.environment, keyId: row.keyId };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The same check for a session that names a key by id: still this merchant's active key (not rotated
 * or revoked), the merchant still active and of this environment. Asked on every request, so a
 * rotation or a revocation ends the session at once.
 */
export async function authenticateApiKeyId(
  db: Db,
  claimed: { platformUuid: string; keyId: string },
  environment: Environment,
): Promise<KeyedMerchant | undefined> {
  if (!UUID.test(claimed.keyId)) return undefined;
  const row = await findMerchantByApiKey(db, { id: claimed.keyId });
  if (!row || row.platformUuid !== claimed.platformUuid || row.environment !== environment || row.status !== 'active') return undefined;
  return { platformUuid: row.platformUuid, environment: row.environment, keyId: row.keyId };
}

/** The id of the merchant's active API key, for a sign-in link bound to it; undefined when it has none. */
export async function activeApiKeyId(db: Db, platformUuid: string): Promise<string | undefined> {
  await getMerchant(db, platformUuid);
  return findActiveApiKeyId(db, platformUuid);
}

/**
 * A new API key, shown once; the previous one stops working at once (same transaction). No overlap:
 * a key is a bearer credential, and a leaked one must die the moment it is rotated. Also issues a key
 * to a merchant that has none (revoked, or registered before keys existed).
 */
export async function rotateApiKey(db: Db, platformUuid: string): Promise<{ platformUuid: string; apiKey: string; apiKeyPrefix: string }> {
  const merchant = await getMerchant(db, platformUuid);
  const apiKey = newApiKey(merchant.environment);
  const stored = storedApiKey(apiKey);
  if (!(await replaceApiKey(db, platformUuid, stored)).found) throw new MerchantNotFoundError(platformUuid);
  return { platformUuid, apiKey, apiKeyPrefix: stored.prefix };
}

/** The merchant's API key stops working now; it has none until the next rotation. */
export async function revokeApiKey(db: Db, platformUuid: string): Promise<{ platformUuid: string; revoked: boolean }> {
  const { found, revoked } = await replaceApiKey(db, platformUuid, null);
  if (!found) throw new MerchantNotFoundError(platformUuid);
  return { platformUuid, revoked: revoked > 0 };
}

/** Whether create-cart for this merchant needs its API key. */
export async function setRequireApiKey(db: Db, platformUuid: string, required: boolean): Promise<MerchantSummary> {
  if (!(await setRequireApiKeyForCarts(db, platformUuid, required))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}
