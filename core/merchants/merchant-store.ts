import type { Environment } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { Db, Sql } from '../db/client.js';
import type postgres from 'postgres';

/**
 * The one owner of the `merchants`, `merchant_domains`, `merchant_api_keys`, `webhook_endpoints` and
 * `webhook_secrets` tables: a merchant, its registered domains, its API keys and its webhook endpoints
 * form one aggregate. Every change of an endpoint's state (enabled, failing, disabled, deleted) is made
 * here. The merchant's first endpoint (the oldest not deleted) is the one the single-URL settings of
 * operators and the dashboard change. Callers go through the other modules of core/merchants/, which check what they are given.
 */

export type EndpointStatus = 'enabled' | 'disabled';

export interface MerchantRow {
  platform_uuid: string;
  name: string;
  environment: Environment;
  status: 'active' | 'inactive';
  url: string;
  endpoint_status: EndpointStatus;
  disabled_reason: string | null;
  disabled_by_operator: boolean;
  domains: string[];
  domain_verification: DomainVerificationRow[];
  require_api_key_for_carts: boolean;
  brand_colour: string | null;
  saved_cards_allowed: boolean;
  /** Its oldest active `full` API key's display prefix; null when it has none (revoked, or registered before keys existed). */
  api_key_prefix: string | null;
  created_at: Date;
}

/** A registered domain's proof of control (core/merchants/domain-verification.ts), as stored. */
export interface DomainVerificationRow {
  domain: string;
  token: string;
  /** When a check last found the token; null: not verified (never, or a later check did not find it). */
  verifiedAt: string | null;
  verifiedBy: 'well-known' | 'dns-txt' | null;
  checkedAt: string | null;
  problem: string | null;
}

const domainVerificationColumn = (sql: Sql) => sql`coalesce((
  select json_agg(json_build_object('domain', d.domain, 'token', d.verification_token, 'verifiedAt', d.verified_at, 'verifiedBy', d.verified_by,
    'checkedAt', d.checked_at, 'problem', d.check_problem) order by d.domain)
  from merchant_domains d where d.platform_uuid = m.platform_uuid), '[]'::json) as domain_verification`;

/** What is stored of an API key: its SHA-256 digest and a short prefix to display, never the key. */
export interface StoredApiKey {
  hash: Buffer;
  prefix: string;
}

/** What a key may do (migration 044): `full` everything, `carts` create carts only, `read` orders and events only. */
export type ApiKeyScope = 'full' | 'carts' | 'read';

/** The merchant, its endpoint, its first sealed secret and (when given) its API key, all or nothing. */
export async function insertMerchant(
  db: Db,
  row: {
    platformUuid: string;
    name: string;
    environment: Environment;
    webhookUrl: string;
    sealedSecret: Buffer;
    domains?: readonly string[];
    apiKey?: StoredApiKey;
  },
): Promise<void> {
  await db.begin(async (tx) => {
    await tx`insert into merchants (platform_uuid, name, environment) values (${row.platformUuid}, ${row.name}, ${row.environment})`;
    if (row.apiKey)
      await tx`insert into merchant_api_keys (platform_uuid, key_hash, key_prefix) values (${row.platformUuid}, ${row.apiKey.hash}, ${row.apiKey.prefix})`;
    if (row.domains?.length) await tx`insert into merchant_domains ${tx(row.domains.map((domain) => ({ platform_uuid: row.platformUuid, domain })))}`;
    const [endpoint] = await tx<{ id: string }[]>`
      insert into webhook_endpoints (platform_uuid, url) values (${row.platformUuid}, ${row.webhookUrl}) returning id`;
    await tx`insert into webhook_secrets (endpoint_id, secret_encrypted) values (${endpoint!.id}, ${row.sealedSecret})`;
  });
}

export function selectMerchants(db: Db, filter: { environment?: Environment; platformUuid?: string } = {}): Promise<MerchantRow[]> {
  return db<MerchantRow[]>`
    select m.platform_uuid, m.name, m.environment, m.status, e.url, e.status as endpoint_status, e.disabled_reason, e.disabled_by_operator, m.created_at,
      array(select d.domain from merchant_domains d where d.platform_uuid = m.platform_uuid order by d.domain) as domains,
      ${domainVerificationColumn(db)},
      m.require_api_key_for_carts, m.brand_colour, m.saved_cards_allowed,
      (select k.key_prefix from merchant_api_keys k where k.platform_uuid = m.platform_uuid and k.revoked_at is null and k.scope = 'full'
        order by k.created_at limit 1) as api_key_prefix
    from merchants m join lateral (${firstEndpoint(db, db`m.platform_uuid`)}) e on true
    where true
      ${filter.environment ? db`and m.environment = ${filter.environment}` : db``}
      ${filter.platformUuid ? db`and m.platform_uuid = ${filter.platformUuid}` : db``}
    order by m.created_at`;
}

export interface ActiveMerchant {
  name: string;
  domains: string[];
  /** Those of its domains a check has proved it controls (production holds cart URLs to these). */
  verifiedDomains: string[];
  requireApiKeyForCarts: boolean;
}

/** The domains a merchant has proved it controls (core/merchants/domain-verification.ts): where its embedded checkout may be framed. */
export async function selectVerifiedDomains(db: Db, platformUuid: string): Promise<string[]> {
  const rows = await db<{ domain: string }[]>`
    select domain from merchant_domains where platform_uuid = ${platformUuid} and verified_at is not null order by domain`;
  return rows.map((row) => row.domain);
}

/** The merchant a create-cart request names, if it may take carts in this environment, with its registered domains and API-key rule. */
export async function findActiveMerchant(db: Db, platformUuid: string, environment: Environment): Promise<ActiveMerchant | undefined> {
  const [row] = await db<ActiveMerchant[]>`
    select m.name, array(select d.domain from merchant_domains d where d.platform_uuid = m.platform_uuid order by d.domain) as domains,
      array(select d.domain from merchant_domains d where d.platform_uuid = m.platform_uuid and d.verified_at is not null order by d.domain) as "verifiedDomains",
      m.require_api_key_for_carts as "requireApiKeyForCarts"
    from merchants m where m.platform_uuid = ${platformUuid} and m.environment = ${environment} and m.status = 'active'`;
  return row;
}

export interface ApiKeyHolder {
  platformUuid: string;
  environment: Environment;
  status: 'active' | 'inactive';
  /** The key's row id: what a dashboard session names instead of the key. */
  keyId: string;
  keyHash: Buffer;
  keyName: string;
  scope: ApiKeyScope;
  lastUsedAt: Date | null;
}

/**
 * The merchant whose active (not revoked) API key has this digest (a presented key) or this id (a
 * dashboard session's), with the digest as stored; undefined once the key is rotated or revoked.
 */
export async function findMerchantByApiKey(db: Db, key: { hash: Buffer } | { id: string }): Promise<ApiKeyHolder | undefined> {
  const [row] = await db<ApiKeyHolder[]>`
    select m.platform_uuid as "platformUuid", m.environment, m.status, k.id as "keyId", k.key_hash as "keyHash", k.name as "keyName", k.scope,
      k.last_used_at as "lastUsedAt"
    from merchant_api_keys k join merchants m using (platform_uuid)
    where ${'hash' in key ? db`k.key_hash = ${key.hash}` : db`k.id = ${key.id}`} and k.revoked_at is null`;
  return row;
}

/** The id of the merchant's oldest active `full` API key; undefined when it has none. */
export async function findActiveApiKeyId(db: Db, platformUuid: string): Promise<string | undefined> {
  const [row] = await db<{ id: string }[]>`
    select id from merchant_api_keys where platform_uuid = ${platformUuid} and revoked_at is null and scope = 'full' order by created_at limit 1`;
  return row?.id;
}

/**
 * Revokes every active API key of the merchant now and, when `next` is given, makes it its one active
 * key (a `full` key named "Default") in the same transaction: the operators' emergency rotation. False
 * when no such merchant.
 */
export async function replaceApiKey(db: Db, platformUuid: string, next: StoredApiKey | null): Promise<{ found: boolean; revoked: number; keyId?: string }> {
  return db.begin(async (tx) => {
    const [merchant] = await tx`select 1 from merchants where platform_uuid = ${platformUuid} for update`;
    if (!merchant) return { found: false, revoked: 0 };
    const revoked = await tx`update merchant_api_keys set revoked_at = now() where platform_uuid = ${platformUuid} and revoked_at is null`;
    if (!next) return { found: true, revoked: revoked.count };
    const [key] = await tx<{ id: string }[]>`
      insert into merchant_api_keys (platform_uuid, key_hash, key_prefix) values (${platformUuid}, ${next.hash}, ${next.prefix}) returning id`;
    return { found: true, revoked: revoked.count, keyId: key!.id };
  });
}

/** An API key as listed: never its digest. */
export interface ApiKeyRow {
  id: string;
  name: string;
  scope: ApiKeyScope;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/**
 * Adds a named, scoped key, unless the merchant already has `max` active ones (counted under the
 * merchant's row lock). `found: false` when no such merchant.
 */
export async function insertApiKey(
  db: Db,
  platformUuid: string,
  key: StoredApiKey & { name: string; scope: ApiKeyScope },
  max: number,
): Promise<{ found: false } | { found: true; row: ApiKeyRow | undefined }> {
  return db.begin(async (tx) => {
    const [merchant] = await tx`select 1 from merchants where platform_uuid = ${platformUuid} for update`;
    if (!merchant) return { found: false as const };
    const [count] = await tx<{ n: number }[]>`
      select count(*)::int as n from merchant_api_keys where platform_uuid = ${platformUuid} and revoked_at is null`;
    if (count!.n >= max) return { found: true as const, row: undefined };
    const [row] = await tx<ApiKeyRow[]>`
      insert into merchant_api_keys (platform_uuid, key_hash, key_prefix, name, scope)
      values (${platformUuid}, ${key.hash}, ${key.prefix}, ${key.name}, ${key.scope})
      returning id, name, scope, key_prefix as prefix, created_at as "createdAt", last_used_at as "lastUsedAt"`;
    return { found: true as const, row };
  });
}

/** The merchant's active keys, oldest first. */
export function selectApiKeys(db: Db, platformUuid: string): Promise<ApiKeyRow[]> {
  return db<ApiKeyRow[]>`
    select id, name, scope, key_prefix as prefix, created_at as "createdAt", last_used_at as "lastUsedAt"
    from merchant_api_keys where platform_uuid = ${platformUuid} and revoked_at is null order by created_at, id`;
}

/** Revokes one of the merchant's active keys now; the others keep working. Its name and scope when it was active, undefined otherwise. */
export async function revokeApiKeyRow(db: Db, platformUuid: string, keyId: string): Promise<Pick<ApiKeyRow, 'name' | 'scope'> | undefined> {
  const [row] = await db<Pick<ApiKeyRow, 'name' | 'scope'>[]>`
    update merchant_api_keys set revoked_at = now()
    where id = ${keyId} and platform_uuid = ${platformUuid} and revoked_at is null returning name, scope`;
  return row;
}

/** The key was used now; written only when its last use is older than `staleSeconds`, so a busy key costs one write a minute. */
export async function recordApiKeyUse(db: Db, key: { id: string } | { hash: Buffer }, staleSeconds: number): Promise<void> {
  await db`
    update merchant_api_keys set last_used_at = now()
    where ${'id' in key ? db`id = ${key.id}` : db`key_hash = ${key.hash}`} and revoked_at is null
      and (last_used_at is null or last_used_at < now() - make_interval(secs => ${staleSeconds}))`;
}

/** False when no merchant has this platformUuid. */
export async function setRequireApiKeyForCarts(db: Db, platformUuid: string, required: boolean): Promise<boolean> {
  const updated = await db`update merchants set require_api_key_for_carts = ${required}, updated_at = now() where platform_uuid = ${platformUuid}`;
  return updated.count > 0;
}

/** Whether the merchant's checkout offers saved cards after the code (docs/saved-cards.md). False when no merchant has this platformUuid. */
export async function setSavedCardsAllowed(db: Db, platformUuid: string, allowed: boolean): Promise<boolean> {
  const updated = await db`update merchants set saved_cards_allowed = ${allowed}, updated_at = now() where platform_uuid = ${platformUuid}`;
  return updated.count > 0;
}

/** The merchant's brand colour (`#rrggbb`), or null for the page's own. False when no merchant has this platformUuid. */
export async function setBrandColour(db: Db, platformUuid: string, colour: string | null): Promise<boolean> {
  const updated = await db`update merchants set brand_colour = ${colour}, updated_at = now() where platform_uuid = ${platformUuid}`;
  return updated.count > 0;
}

/**
 * The brand colour of a `carts` row's merchant as a column, for a query on `carts` to read in the same
 * round trip (core/checkout/cart-ledger.ts): the page's one query stays one, and this table's SQL here.
 */
export const cartMerchantBrandColourColumn = (sql: Sql) =>
  sql`(select m.brand_colour from merchants m where m.platform_uuid = carts.platform_uuid) as brand_colour`;

/**
 * Replaces the merchant's registered domains with these (already normalized). A domain it keeps keeps
 * its token and verification; a new one gets a fresh token, unverified. False when no such merchant.
 */
export async function replaceDomains(db: Db, platformUuid: string, domains: readonly string[]): Promise<boolean> {
  return db.begin(async (tx) => {
    const [merchant] = await tx`select 1 from merchants where platform_uuid = ${platformUuid} for update`;
    if (!merchant) return false;
    await tx`delete from merchant_domains where platform_uuid = ${platformUuid} and not (domain = any(${domains as string[]}::text[]))`;
    if (domains.length)
      await tx`insert into merchant_domains ${tx(domains.map((domain) => ({ platform_uuid: platformUuid, domain })))} on conflict (platform_uuid, domain) do nothing`;
    return true;
  });
}

/** A domain to check: whose, which, and the token to look for. */
export interface DomainToVerify {
  platformUuid: string;
  domain: string;
  token: string;
}

/** One merchant's registered domains with their tokens (none when no such merchant). */
export function selectMerchantDomainTokens(db: Db, platformUuid: string): Promise<DomainToVerify[]> {
  return db<DomainToVerify[]>`
    select platform_uuid as "platformUuid", domain, verification_token as token
    from merchant_domains where platform_uuid = ${platformUuid} order by domain`;
}

/** Production merchants' domains after `after` (by merchant, then domain), `limit` at most: the daily re-check's pages. */
export function selectProductionDomainsToVerify(db: Db, after: { platformUuid: string; domain: string } | undefined, limit: number): Promise<DomainToVerify[]> {
  return db<DomainToVerify[]>`
    select d.platform_uuid as "platformUuid", d.domain, d.verification_token as token
    from merchant_domains d join merchants m using (platform_uuid)
    where m.environment = 'production'
      ${after ? db`and (d.platform_uuid, d.domain) > (${after.platformUuid}::uuid, ${after.domain})` : db``}
    order by d.platform_uuid, d.domain limit ${limit}`;
}

/**
 * What a check found. Applies only while the domain still has the token checked (not removed, nor
 * removed and added again with a new token, meanwhile). False when it no longer does.
 */
export async function recordDomainCheck(
  db: Db,
  checked: DomainToVerify,
  result: { verifiedBy: 'well-known' | 'dns-txt' } | { problem: string },
): Promise<boolean> {
  const verified = 'verifiedBy' in result;
  const updated = await db`
    update merchant_domains set checked_at = now(),
      verified_at = ${verified ? db`coalesce(verified_at, now())` : db`null`},
      verified_by = ${verified ? result.verifiedBy : null},
      check_problem = ${verified ? null : result.problem}
    where platform_uuid = ${checked.platformUuid} and domain = ${checked.domain} and verification_token = ${checked.token}`;
  return updated.count > 0;
}

/** Whether the merchant takes new carts. False when no merchant has this platformUuid. */
export async function setMerchantStatus(db: Db, platformUuid: string, status: 'active' | 'inactive'): Promise<boolean> {
  const updated = await db`update merchants set status = ${status}, updated_at = now() where platform_uuid = ${platformUuid}`;
  return updated.count > 0;
}

/** Who changes an endpoint: an operator's decisions bind the merchant, not the other way round. */
export type EndpointActor = 'operator' | 'merchant';

/**
 * Enables the endpoint and forgets its failure streak: on a new URL (a fresh start) or an operator's
 * recovery after the merchant's outage. A merchant's change never enables an endpoint an operator
 * disabled (its URL is still saved). False when no such endpoint (or it was deleted).
 */
export async function enableEndpoint(db: Sql, endpointId: string, by: EndpointActor, newUrl?: string): Promise<boolean> {
  const updated = await db`
    update webhook_endpoints set url = coalesce(${newUrl ?? null}, url), updated_at = now()
    where id = ${endpointId} and deleted_at is null`;
  await db`
    update webhook_endpoints set status = 'enabled', disabled_reason = null, disabled_by_operator = false, disabled_addresses = null, failing_since = null
    where id = ${endpointId} and deleted_at is null ${by === 'merchant' ? db`and not disabled_by_operator` : db``}`;
  return updated.count > 0;
}

/** A 2xx ends the endpoint's failure streak. */
export async function recordEndpointSuccess(db: Db, endpointId: string): Promise<void> {
  await db`update webhook_endpoints set failing_since = null where id = ${endpointId} and failing_since is not null`;
}

/** Starts the failure streak at `at` unless one is running; returns when the streak began. */
export async function recordEndpointFailure(db: Db, endpointId: string, at: Date): Promise<Date> {
  const [row] = await db<{ failing_since: Date }[]>`
    update webhook_endpoints set failing_since = coalesce(failing_since, ${at}) where id = ${endpointId} returning failing_since`;
  return row?.failing_since ?? at;
}

/**
 * `byOperator`: only an operator enables it again (enableEndpoint), and until then its binding holds
 * the addresses its host resolved to when the operator disabled it (core/webhooks/endpoint-target.ts).
 */
export async function disableEndpoint(db: Sql, endpointId: string, reason: string, byOperator?: { addresses: readonly string[] }): Promise<void> {
  await db`
    update webhook_endpoints set status = 'disabled', disabled_reason = ${reason}, disabled_by_operator = disabled_by_operator or ${byOperator !== undefined},
      disabled_addresses = ${byOperator ? [...byOperator.addresses] : db`disabled_addresses`}, updated_at = now()
    where id = ${endpointId}`;
}

/**
 * Adds a sealed secret to the endpoint; those live until now expire at `expireAt` (never later than
 * they already would). False when no such endpoint (or it was deleted).
 */
export async function addSecret(db: Db, endpointId: string, sealedSecret: Buffer, expireAt: Date): Promise<boolean> {
  return db.begin(async (tx) => {
    const [endpoint] = await tx<{ id: string }[]>`select id from webhook_endpoints where id = ${endpointId} and deleted_at is null for update`;
    if (!endpoint) return false;
    await tx`
      update webhook_secrets set expires_at = ${expireAt}
      where endpoint_id = ${endpoint.id} and (expires_at is null or expires_at > ${expireAt})`;
    await tx`insert into webhook_secrets (endpoint_id, secret_encrypted) values (${endpoint.id}, ${sealedSecret})`;
    return true;
  });
}

/** The sealed secrets that sign right now, newest first. */
export async function liveSealedSecrets(db: Db, endpointId: string): Promise<Buffer[]> {
  const rows = await db<{ secret_encrypted: Buffer }[]>`
    select secret_encrypted from webhook_secrets
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > now())
    order by created_at desc`;
  return rows.map((r) => r.secret_encrypted);
}

/** Re-seals with the newest key every webhook secret it did not seal; returns how many. Running it twice changes nothing. */
export async function resealWebhookSecrets(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ id: string; secret_encrypted: Buffer }[]>`select id, secret_encrypted from webhook_secrets`;
  let resealed = 0;
  for (const row of rows) {
    if (keyring.sealedWith(row.secret_encrypted) === keyring.sealingKeyId) continue;
    const updated = await db`
      update webhook_secrets set secret_encrypted = ${keyring.seal(keyring.open(row.secret_encrypted))}
      where id = ${row.id} and secret_encrypted = ${row.secret_encrypted}`;
    resealed += updated.count;
  }
  return resealed;
}

export interface DeliveryEndpoint {
  environment: Environment;
  endpointId: string;
  url: string;
  status: EndpointStatus;
  /** Disabled by an operator: nothing is sent to it, replays included, until an operator enables it. */
  disabledByOperator: boolean;
  /** Deleted by the merchant: nothing is sent to it any more. */
  deleted: boolean;
  /** Event names it takes, or `*` for every one: a replay honours them too (core/webhooks/replay.ts). */
  enabledEvents: string[];
}

/** The merchant's first endpoint (the oldest not deleted), as a subquery on `platformUuid`. */
const firstEndpoint = (sql: Sql, platformUuid: ReturnType<Db>) => sql`
  select * from webhook_endpoints e0 where e0.platform_uuid = ${platformUuid} and e0.deleted_at is null order by e0.created_at, e0.id limit 1`;

/**
 * Where a merchant's events go and in which environment's rules: the endpoint `endpointId` (deleted
 * ones included, flagged), or without it the merchant's first endpoint, where deliveries asked before
 * endpoints had ids go.
 */
export async function findDeliveryEndpoint(db: Db, platformUuid: string, endpointId?: string): Promise<DeliveryEndpoint | undefined> {
  const [row] = await db<DeliveryEndpoint[]>`
    select m.environment, e.id as "endpointId", e.url, e.status, e.disabled_by_operator as "disabledByOperator", e.deleted_at is not null as deleted,
      e.enabled_events as "enabledEvents"
    from merchants m join lateral (${
      endpointId === undefined
        ? firstEndpoint(db, db`m.platform_uuid`)
        : db`select * from webhook_endpoints e0 where e0.id = ${endpointId} and e0.platform_uuid = m.platform_uuid`
    }) e on true
    where m.platform_uuid = ${platformUuid}`;
  return row;
}

/** The id of the merchant's first endpoint; undefined when no such merchant. */
export async function firstEndpointId(db: Db, platformUuid: string): Promise<string | undefined> {
  return (await findDeliveryEndpoint(db, platformUuid))?.endpointId;
}

export interface EndpointRow {
  id: string;
  platform_uuid: string;
  url: string;
  enabled_events: string[];
  description: string;
  status: EndpointStatus;
  disabled_reason: string | null;
  disabled_by_operator: boolean;
  /** What the host resolved to when an operator disabled it; null otherwise, and for disables before migration 037. */
  disabled_addresses: string[] | null;
  created_at: Date;
  updated_at: Date;
}

const ENDPOINT_COLUMNS = (sql: Sql) =>
  sql`id, platform_uuid, url, enabled_events, description, status, disabled_reason, disabled_by_operator, disabled_addresses, created_at, updated_at`;

/** The merchant's endpoints (not deleted), oldest first. */
export function selectEndpoints(db: Db, platformUuid: string): Promise<EndpointRow[]> {
  return db<EndpointRow[]>`
    select ${ENDPOINT_COLUMNS(db)} from webhook_endpoints where platform_uuid = ${platformUuid} and deleted_at is null order by created_at, id`;
}

/** One of the merchant's endpoints (not deleted); another merchant's is not found. */
export async function selectEndpoint(db: Sql, platformUuid: string, endpointId: string): Promise<EndpointRow | undefined> {
  const [row] = await db<EndpointRow[]>`
    select ${ENDPOINT_COLUMNS(db)} from webhook_endpoints where id = ${endpointId} and platform_uuid = ${platformUuid} and deleted_at is null`;
  return row;
}

/**
 * Adds an endpoint with its first sealed secret, unless the merchant already has `max`: counted under
 * the merchant's row lock, so two requests at once cannot both pass; nor when `boundBy` names one of
 * the merchant's endpoints an operator disabled that the new one would stand for (its target), answered
 * as `{ boundBy }`. Undefined when no such merchant.
 */
export async function insertEndpoint(
  db: Db,
  row: {
    platformUuid: string;
    url: string;
    enabledEvents: readonly string[];
    description: string;
    sealedSecret: Buffer;
    max: number;
    boundBy?: (operatorDisabled: EndpointRow[]) => string | undefined;
  },
): Promise<{ id: string } | 'limit_reached' | { boundBy: string } | undefined> {
  return db.begin(async (tx) => {
    const [merchant] = await tx`select 1 from merchants where platform_uuid = ${row.platformUuid} for update`;
    if (!merchant) return undefined;
    const boundBy = row.boundBy?.(await selectOperatorDisabledEndpoints(tx, row.platformUuid));
    if (boundBy !== undefined) return { boundBy };
    const [live] = await tx<{ count: number }[]>`
      select count(*)::int as count from webhook_endpoints where platform_uuid = ${row.platformUuid} and deleted_at is null`;
    if (live!.count >= row.max) return 'limit_reached';
    const [endpoint] = await tx<{ id: string }[]>`
      insert into webhook_endpoints (platform_uuid, url, enabled_events, description)
      values (${row.platformUuid}, ${row.url}, ${[...row.enabledEvents]}, ${row.description}) returning id`;
    await tx`insert into webhook_secrets (endpoint_id, secret_encrypted) values (${endpoint!.id}, ${row.sealedSecret})`;
    return { id: endpoint!.id };
  });
}

/** Changes what the endpoint receives and how it is described. False when not one of the merchant's endpoints. */
export async function updateEndpointSettings(
  db: Sql,
  platformUuid: string,
  endpointId: string,
  change: { enabledEvents?: readonly string[]; description?: string },
): Promise<boolean> {
  const updated = await db`
    update webhook_endpoints set
      enabled_events = ${change.enabledEvents ? [...change.enabledEvents] : db`enabled_events`},
      description = ${change.description ?? db`description`},
      updated_at = now()
    where id = ${endpointId} and platform_uuid = ${platformUuid} and deleted_at is null`;
  return updated.count > 0;
}

/**
 * The merchant's endpoints (not deleted) an operator disabled: until an operator enables each again,
 * the merchant neither deletes, enables nor moves it, nor adds its URL again (core/webhooks/endpoints.ts).
 */
export function selectOperatorDisabledEndpoints(sql: Sql, platformUuid: string): Promise<EndpointRow[]> {
  return sql<EndpointRow[]>`
    select ${ENDPOINT_COLUMNS(sql)} from webhook_endpoints
    where platform_uuid = ${platformUuid} and deleted_at is null and status = 'disabled' and disabled_by_operator
    order by created_at, id`;
}

/**
 * Deletes the endpoint (its row stays for its log), unless it is the merchant's last one, or one an
 * operator disabled (only an operator's enable lifts that).
 */
export async function deleteEndpoint(
  db: Db,
  platformUuid: string,
  endpointId: string,
): Promise<'deleted' | 'not_found' | 'last_endpoint' | 'operator_disabled'> {
  return db.begin(async (tx) => {
    await tx`select 1 from merchants where platform_uuid = ${platformUuid} for update`;
    const live = await tx<{ id: string; bound: boolean }[]>`
      select id, status = 'disabled' and disabled_by_operator as bound from webhook_endpoints where platform_uuid = ${platformUuid} and deleted_at is null`;
    const endpoint = live.find((e) => e.id === endpointId);
    if (!endpoint) return 'not_found';
    if (endpoint.bound) return 'operator_disabled';
    if (live.length === 1) return 'last_endpoint';
    await tx`update webhook_endpoints set deleted_at = now(), updated_at = now() where id = ${endpointId}`;
    return 'deleted';
  });
}

/**
 * The merchant's endpoints (not deleted) whose enabled events include `event`: the endpoints an event
 * is recorded for (core/webhooks/event-store.ts insertEventWithDeliveries), as a fragment of its
 * statement. Disabled ones are included: their deliveries are kept as skipped, replayable once enabled.
 */
export function subscribedEndpoints(sql: Sql, platformUuid: string, event: string): postgres.Fragment {
  return sql`
    select id from webhook_endpoints
    where platform_uuid = ${platformUuid} and deleted_at is null and ('*' = any(enabled_events) or ${event} = any(enabled_events))`;
}
