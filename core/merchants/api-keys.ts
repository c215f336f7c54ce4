import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Environment } from '../config.js';
import { displayText } from '../display-text.js';
import type { Db } from '../db/client.js';
import {
  findActiveApiKeyId,
  findMerchantByApiKey,
  insertApiKey,
  recordApiKeyUse,
  replaceApiKey,
  revokeApiKeyRow,
  selectApiKeys,
  setRequireApiKeyForCarts,
  type ApiKeyHolder,
  type ApiKeyRow,
  type ApiKeyScope,
  type StoredApiKey,
} from './merchant-store.js';
import { getMerchant, MerchantNotFoundError, type MerchantSummary } from './merchants.js';

/**
 * A merchant's API keys: several, each named and scoped (issue 51, point 5), issued (shown once),
 * stored as a digest, checked, listed with their last use, revoked one by one; the operators' rotation
 * of them all; and whether create-cart requires one.
 */

export type { ApiKeyScope } from './merchant-store.js';
export const API_KEY_SCOPES = ['full', 'carts', 'read'] as const satisfies readonly ApiKeyScope[];
/** What each scope lets a key do, in words: the dashboard's form and the docs say the same. */
export const API_KEY_SCOPE_MEANING: Record<ApiKeyScope, string> = {
  full: 'everything the merchant API does',
  carts: 'create carts only',
  read: 'read orders and events only',
};
/** Active keys a merchant may hold at once. */
export const MAX_ACTIVE_API_KEYS = 20;
/** A key's last use is written at most this often: a busy key costs one write a minute, not one a request. */
export const LAST_USE_RESOLUTION_SECONDS = 60;

/** A key's name, as the dashboard and the audit log show it: the merchant's display text rules (core/display-text.ts). */
export const apiKeyNameSchema = displayText(z.string().trim().min(1, 'must not be empty').max(60, 'must be at most 60 characters'));
export const apiKeyScopeSchema = z.enum(API_KEY_SCOPES);

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
  keyName: string;
  scope: ApiKeyScope;
}

/**
 * Notes the key's use when its recorded one is over a minute old, without holding up the request: a
 * lost write only makes the listed last use a minute older.
 */
function noteUse(db: Db, row: ApiKeyHolder): void {
  if (row.lastUsedAt && Date.now() - row.lastUsedAt.getTime() < LAST_USE_RESOLUTION_SECONDS * 1000) return;
  recordApiKeyUse(db, { id: row.keyId }, LAST_USE_RESOLUTION_SECONDS).catch(() => {});
}

const keyedMerchant = (row: ApiKeyHolder): KeyedMerchant => ({
  platformUuid: row.platformUuid,
  environment: row.environment,
  keyId: row.keyId,
  keyName: row.keyName,
  scope: row.scope,
});

/**
 * The active merchant of this environment whose active API key this is, with the key's name and
 * scope; undefined for anything else. Read from the database on every call, no cache: a revoked key
 * is refused from the next request on.
 */
export async function authenticateApiKey(db: Db, presented: string | undefined, environment: Environment): Promise<KeyedMerchant | undefined> {
  const format = presented ? API_KEY_PATTERN.exec(presented) : null;
  if (!presented || !format || format[1] !== environment) return undefined;
  const row = await findMerchantByApiKey(db, { hash: apiKeyHash(presented) });
  if (!row || !apiKeyMatches(presented, row.keyHash) || row.environment !== environment || row.status !== 'active') return undefined;
  noteUse(db, row);
  return keyedMerchant(row);
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
  return keyedMerchant(row);
}

/** The id of the merchant's oldest active `full` API key, for a sign-in link bound to it; undefined when it has none. */
export async function activeApiKeyId(db: Db, platformUuid: string): Promise<string | undefined> {
  await getMerchant(db, platformUuid);
  return findActiveApiKeyId(db, platformUuid);
}

/**
 * The operators' rotation: a new `full` key named "Default", shown once; every key the merchant had
 * stops working at once (same transaction). No overlap: a key is a bearer credential, and a leaked one
 * must die the moment it is rotated. Also issues a key to a merchant that has none.
 */
export async function rotateApiKey(db: Db, platformUuid: string): Promise<{ platformUuid: string; apiKey: string; apiKeyPrefix: string; keyId: string }> {
  const merchant = await getMerchant(db, platformUuid);
  const apiKey = newApiKey(merchant.environment);
  const stored = storedApiKey(apiKey);
  const replaced = await replaceApiKey(db, platformUuid, stored);
  if (!replaced.found) throw new MerchantNotFoundError(platformUuid);
  return { platformUuid, apiKey, apiKeyPrefix: stored.prefix, keyId: replaced.keyId! };
}

/** Every API key of the merchant stops working now; it has none until a rotation or a new key. */
export async function revokeApiKey(db: Db, platformUuid: string): Promise<{ platformUuid: string; revoked: boolean }> {
  const { found, revoked } = await replaceApiKey(db, platformUuid, null);
  if (!found) throw new MerchantNotFoundError(platformUuid);
  return { platformUuid, revoked: revoked > 0 };
}

/** The merchant has MAX_ACTIVE_API_KEYS active keys: one must be revoked before another is created. */
export class ApiKeyLimitError extends Error {}

/** An API key as the merchant sees it listed: never the key nor its digest. */
export type ApiKeySummary = ApiKeyRow;

/** A new named, scoped key beside the merchant's others, shown once (`apiKey`). */
export async function createApiKey(
  db: Db,
  platformUuid: string,
  request: { name: string; scope: ApiKeyScope },
): Promise<{ key: ApiKeySummary; apiKey: string }> {
  const name = apiKeyNameSchema.parse(request.name);
  const scope = apiKeyScopeSchema.parse(request.scope);
  const merchant = await getMerchant(db, platformUuid);
  const apiKey = newApiKey(merchant.environment);
  const inserted = await insertApiKey(db, platformUuid, { ...storedApiKey(apiKey), name, scope }, MAX_ACTIVE_API_KEYS);
  if (!inserted.found) throw new MerchantNotFoundError(platformUuid);
  if (!inserted.row) throw new ApiKeyLimitError(`A merchant holds at most ${MAX_ACTIVE_API_KEYS} active API keys: revoke one first.`);
  return { key: inserted.row, apiKey };
}

/** The merchant's active keys, oldest first, each with its last use (to the minute). */
export async function listApiKeys(db: Db, platformUuid: string): Promise<ApiKeySummary[]> {
  await getMerchant(db, platformUuid);
  return selectApiKeys(db, platformUuid);
}

/** One key stops working now; the merchant's others keep working. Undefined when it is not one of the merchant's active keys. */
export async function revokeApiKeyById(db: Db, platformUuid: string, keyId: string): Promise<{ name: string; scope: ApiKeyScope } | undefined> {
  if (!UUID.test(keyId)) return undefined;
  return revokeApiKeyRow(db, platformUuid, keyId);
}

/** A keyed create-cart's use of its key (create-cart checks the key in SQL, api/carts/cart-caller.ts). */
export function noteApiKeyUseByDigest(db: Db, hash: Buffer): Promise<void> {
  return recordApiKeyUse(db, { hash }, LAST_USE_RESOLUTION_SECONDS);
}

/** Whether create-cart for this merchant needs its API key. */
export async function setRequireApiKey(db: Db, platformUuid: string, required: boolean): Promise<MerchantSummary> {
  if (!(await setRequireApiKeyForCarts(db, platformUuid, required))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}
