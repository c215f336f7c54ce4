import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';
import { listMerchantDeliveries, type EventDeliveries } from '../webhooks/event-store.js';
import { webhookUrlProblems } from '../webhooks/url-safety.js';
import { brandPalette, explainPalette, normalizeBrandColour, type BrandPalette } from '../brand/brand-colours.js';
import { MAX_DOMAINS, normalizeDomain } from './domains.js';
import {
  addSecret,
  disableEndpoint,
  enableEndpoint,
  findActiveApiKeyId,
  findDeliveryEndpoint,
  findMerchantByApiKeyHash,
  findMerchantByApiKeyId,
  insertMerchant,
  liveSealedSecrets,
  replaceApiKey,
  replaceDomains,
  selectMerchants,
  setMerchantStatus,
  setBrandColour,
  setRequireApiKeyForCarts,
  type EndpointStatus,
  type MerchantRow,
  type StoredApiKey,
} from './merchant-store.js';

/**
 * What operators (CLI and API) and the stack's own seeding do with merchants. Every way in checks
 * the webhook URL for the merchant's environment (core/webhooks/url-safety.ts) and each registered
 * domain (core/merchants/domains.ts) before storing them.
 */

export interface NewMerchant {
  name: string;
  environment: Environment;
  webhookUrl: string;
  /** Hosts its store URL, logo and return URLs may use (with their subdomains); required in production before it can take carts. */
  domains?: string[];
}

export interface CreatedMerchant {
  platformUuid: string;
  name: string;
  environment: Environment;
  webhookUrl: string;
  domains: string[];
  /** Shown once; only its encryption is stored. */
  webhookSecret: string;
  /** `sk_<environment>_…`, shown once; only its SHA-256 digest is stored. */
  apiKey: string;
}

export interface MerchantSummary {
  platformUuid: string;
  name: string;
  environment: Environment;
  status: 'active' | 'inactive';
  webhookUrl: string;
  endpointStatus: EndpointStatus;
  endpointDisabledReason: string | null;
  domains: string[];
  /** When true, create-cart for this merchant needs Authorization: Bearer <its API key>. */
  requireApiKeyForCarts: boolean;
  /** The start of its active API key, to tell keys apart (`sk_sandbox_ab12`); null when it has none. */
  apiKeyPrefix: string | null;
  /** Its brand colour, `#rrggbb`; null: the page's own colours. */
  brandColour: string | null;
  /** The colours the page derives from it and why (core/brand/brand-colours.ts); null without one. */
  brandPalette: (BrandPalette & { explanation: string }) | null;
  createdAt: string;
}

export class MerchantNotFoundError extends Error {
  override name = 'MerchantNotFoundError';
  constructor(readonly platformUuid: string) {
    super(`no merchant has platformUuid ${platformUuid}`);
  }
}

export class WebhookUrlRejectedError extends Error {
  override name = 'WebhookUrlRejectedError';
  constructor(readonly problems: string[]) {
    super(`webhook URL ${problems.join('; ')}`);
  }
}

export class DomainsRejectedError extends Error {
  override name = 'DomainsRejectedError';
  /** `index` is the entry's position in the list given, or undefined when the list as a whole is wrong. */
  constructor(readonly problems: Array<{ index?: number; message: string }>) {
    super(`domains ${problems.map((p) => (p.index === undefined ? p.message : `[${p.index}] ${p.message}`)).join('; ')}`);
  }
}

/** The stored form of each entry (lower case, IDNA), duplicates dropped; every bad entry reported at once. */
export function normalizeDomains(domains: readonly string[]): string[] {
  if (domains.length > MAX_DOMAINS) throw new DomainsRejectedError([{ message: `must hold at most ${MAX_DOMAINS} domains` }]);
  const normalized: string[] = [];
  const problems: Array<{ index: number; message: string }> = [];
  domains.forEach((value, index) => {
    const result = normalizeDomain(value);
    if ('problem' in result) problems.push({ index, message: `${JSON.stringify(value)} ${result.problem}` });
    else if (!normalized.includes(result.domain)) normalized.push(result.domain);
  });
  if (problems.length) throw new DomainsRejectedError(problems);
  return normalized;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

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

function storedApiKey(apiKey: string): StoredApiKey {
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
  const row = await findMerchantByApiKeyHash(db, apiKeyHash(presented));
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
  const row = await findMerchantByApiKeyId(db, claimed.keyId);
  if (!row || row.platformUuid !== claimed.platformUuid || row.environment !== environment || row.status !== 'active') return undefined;
  return { platformUuid: row.platformUuid, environment: row.environment, keyId: row.keyId };
}

/** The id of the merchant's active API key, for a sign-in link bound to it; undefined when it has none. */
export async function activeApiKeyId(db: Db, platformUuid: string): Promise<string | undefined> {
  await getMerchant(db, platformUuid);
  return findActiveApiKeyId(db, platformUuid);
}

const toSummary = (r: MerchantRow): MerchantSummary => ({
  platformUuid: r.platform_uuid,
  name: r.name,
  environment: r.environment,
  status: r.status,
  webhookUrl: r.url,
  endpointStatus: r.endpoint_status,
  endpointDisabledReason: r.disabled_reason,
  domains: r.domains,
  requireApiKeyForCarts: r.require_api_key_for_carts,
  apiKeyPrefix: r.api_key_prefix,
  brandColour: r.brand_colour,
  brandPalette: r.brand_colour ? withExplanation(brandPalette(r.brand_colour)) : null,
  createdAt: r.created_at.toISOString(),
});

async function assertWebhookUrl(url: string, environment: Environment): Promise<void> {
  const problems = await webhookUrlProblems(url, environment);
  if (problems.length) throw new WebhookUrlRejectedError(problems);
}

/** Creates a merchant with its webhook endpoint and a first signing secret, once the URL passes its checks. */
export async function registerMerchant(db: Db, keyring: Keyring, merchant: NewMerchant): Promise<CreatedMerchant> {
  normalizeDomains(merchant.domains ?? []);
  await assertWebhookUrl(merchant.webhookUrl, merchant.environment);
  return registerMerchantWithoutUrlCheck(db, keyring, merchant);
}

/**
 * The same without the URL check: only for tests that must stand where registration would have
 * refused (a URL whose DNS was re-pointed after it passed). Everything else calls registerMerchant.
 */
export async function registerMerchantWithoutUrlCheck(db: Db, keyring: Keyring, merchant: NewMerchant): Promise<CreatedMerchant> {
  const platformUuid = randomUUID();
  const webhookSecret = newWebhookSecret();
  const apiKey = newApiKey(merchant.environment);
  const domains = normalizeDomains(merchant.domains ?? []);
  await insertMerchant(db, { platformUuid, ...merchant, domains, sealedSecret: keyring.seal(webhookSecret), apiKey: storedApiKey(apiKey) });
  return { platformUuid, name: merchant.name, environment: merchant.environment, webhookUrl: merchant.webhookUrl, domains, webhookSecret, apiKey };
}

export async function listMerchants(db: Db, environment?: Environment): Promise<MerchantSummary[]> {
  return (await selectMerchants(db, environment ? { environment } : {})).map(toSummary);
}

export async function getMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  const [row] = await selectMerchants(db, { platformUuid });
  if (!row) throw new MerchantNotFoundError(platformUuid);
  return toSummary(row);
}

/** Checked for the merchant's environment; a new URL also re-enables the endpoint. */
export async function changeWebhookUrl(db: Db, platformUuid: string, webhookUrl: string): Promise<MerchantSummary> {
  const merchant = await getMerchant(db, platformUuid);
  await assertWebhookUrl(webhookUrl, merchant.environment);
  if (!(await enableEndpoint(db, platformUuid, webhookUrl))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** Replaces the merchant's registered domains; an empty list stops a production merchant from taking carts. */
export async function setMerchantDomains(db: Db, platformUuid: string, domains: readonly string[]): Promise<MerchantSummary> {
  const normalized = normalizeDomains(domains);
  if (!(await replaceDomains(db, platformUuid, normalized))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/**
 * Adds a new secret; the ones live until now keep signing for `overlapMs` (never longer than they
 * already would), so the merchant can deploy the new one without rejecting a single delivery.
 */
export async function rotateWebhookSecret(
  db: Db,
  keyring: Keyring,
  platformUuid: string,
  overlapMs: number,
): Promise<{ platformUuid: string; webhookSecret: string; previousSecretsExpireAt: string }> {
  const webhookSecret = newWebhookSecret();
  const expireAt = new Date(Date.now() + overlapMs);
  if (!(await addSecret(db, platformUuid, keyring.seal(webhookSecret), expireAt))) throw new MerchantNotFoundError(platformUuid);
  return { platformUuid, webhookSecret, previousSecretsExpireAt: expireAt.toISOString() };
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

export class BrandColourRejectedError extends Error {
  override name = 'BrandColourRejectedError';
  constructor(readonly given: string) {
    super(`brand colour ${JSON.stringify(given)} is not a hex colour such as #1a73e8`);
  }
}

/**
 * Sets (or, with null, clears) the merchant's brand colour. Any hex colour is taken: one too light to
 * read is darkened on the page, and the answer's brandPalette says to what and why.
 */
export async function setMerchantBrandColour(db: Db, platformUuid: string, colour: string | null): Promise<MerchantSummary> {
  const normalized = colour === null ? null : normalizeBrandColour(colour);
  if (normalized === undefined) throw new BrandColourRejectedError(colour!);
  if (!(await setBrandColour(db, platformUuid, normalized))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

const withExplanation = (palette: BrandPalette) => ({ ...palette, explanation: explainPalette(palette) });

/** Stops new carts for the merchant; events of carts already created are still delivered. */
export async function deactivateMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  if (!(await setMerchantStatus(db, platformUuid, 'inactive'))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** The merchant takes carts (and its API key works) again. */
export async function activateMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  if (!(await setMerchantStatus(db, platformUuid, 'active'))) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** Why an endpoint an operator disabled is disabled, as the merchant's webhook settings show it. */
export const OPERATOR_DISABLED_REASON = 'disabled by an operator';

/** An operator stops deliveries to the endpoint; its events are kept as `skipped`, replayable once it is enabled again. */
export async function disableWebhookEndpoint(db: Db, platformUuid: string, reason: string): Promise<MerchantSummary> {
  const endpoint = await findDeliveryEndpoint(db, platformUuid);
  if (!endpoint) throw new MerchantNotFoundError(platformUuid);
  await disableEndpoint(db, endpoint.endpointId, reason);
  return getMerchant(db, platformUuid);
}

/** After an outage on the merchant's side: the endpoint takes deliveries again. */
export async function reenableWebhookEndpoint(db: Db, platformUuid: string): Promise<void> {
  if (!(await enableEndpoint(db, platformUuid))) throw new MerchantNotFoundError(platformUuid);
}

/** The secrets that sign right now, newest first. */
export async function liveWebhookSecrets(db: Db, keyring: Keyring, endpointId: string): Promise<string[]> {
  return (await liveSealedSecrets(db, endpointId)).map((sealed) => keyring.open(sealed));
}

/** An operator's view of a merchant's deliveries, newest first; an unknown merchant is an error, not an empty list. */
export async function listEndpointDeliveries(
  db: Db,
  platformUuid: string,
  filter: Parameters<typeof listMerchantDeliveries>[2] = {},
): Promise<EventDeliveries[]> {
  await getMerchant(db, platformUuid);
  return listMerchantDeliveries(db, platformUuid, filter);
}
