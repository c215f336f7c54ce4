import { randomBytes, randomUUID } from 'node:crypto';
import { decrypt, encrypt } from './crypto.js';
import type { Db } from './db/client.js';
import type { Environment } from './config.js';
import { webhookUrlProblems } from './webhooks/url-safety.js';

export interface NewMerchant {
  name: string;
  environment: Environment;
  webhookUrl: string;
}

export interface CreatedMerchant {
  platformUuid: string;
  name: string;
  environment: Environment;
  webhookUrl: string;
  /** Shown once; only its encryption is stored. */
  webhookSecret: string;
}

export interface MerchantSummary {
  platformUuid: string;
  name: string;
  environment: Environment;
  status: 'active' | 'inactive';
  webhookUrl: string;
  endpointStatus: 'enabled' | 'disabled';
  endpointDisabledReason: string | null;
  createdAt: string;
}

export class MerchantNotFoundError extends Error {
  override name = 'MerchantNotFoundError';
  constructor(readonly platformUuid: string) {
    super(`no merchant has platformUuid ${platformUuid}`);
  }
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Creates a merchant with its webhook endpoint and a first signing secret, all or nothing. The URL is
 * taken as given: operator entry points check it first (core/webhooks/url-safety.ts).
 */
export async function createMerchant(db: Db, encryptionKey: Buffer, merchant: NewMerchant): Promise<CreatedMerchant> {
  const platformUuid = randomUUID();
  const webhookSecret = newWebhookSecret();
  await db.begin(async (tx) => {
    await tx`insert into merchants (platform_uuid, name, environment) values (${platformUuid}, ${merchant.name}, ${merchant.environment})`;
    const [endpoint] = await tx<{ id: string }[]>`
      insert into webhook_endpoints (platform_uuid, url) values (${platformUuid}, ${merchant.webhookUrl}) returning id`;
    await tx`insert into webhook_secrets (endpoint_id, secret_encrypted) values (${endpoint!.id}, ${encrypt(encryptionKey, webhookSecret)})`;
  });
  return { platformUuid, name: merchant.name, environment: merchant.environment, webhookUrl: merchant.webhookUrl, webhookSecret };
}

interface MerchantRow {
  platform_uuid: string;
  name: string;
  environment: Environment;
  status: 'active' | 'inactive';
  url: string;
  endpoint_status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
}

const toSummary = (r: MerchantRow): MerchantSummary => ({
  platformUuid: r.platform_uuid,
  name: r.name,
  environment: r.environment,
  status: r.status,
  webhookUrl: r.url,
  endpointStatus: r.endpoint_status,
  endpointDisabledReason: r.disabled_reason,
  createdAt: r.created_at.toISOString(),
});

export async function listMerchants(db: Db, environment?: Environment): Promise<MerchantSummary[]> {
  const rows = await db<MerchantRow[]>`
    select m.platform_uuid, m.name, m.environment, m.status, e.url, e.status as endpoint_status, e.disabled_reason, m.created_at
    from merchants m join webhook_endpoints e using (platform_uuid)
    ${environment ? db`where m.environment = ${environment}` : db``}
    order by m.created_at`;
  return rows.map(toSummary);
}

export async function getMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  const [row] = await db<MerchantRow[]>`
    select m.platform_uuid, m.name, m.environment, m.status, e.url, e.status as endpoint_status, e.disabled_reason, m.created_at
    from merchants m join webhook_endpoints e using (platform_uuid)
    where m.platform_uuid = ${platformUuid}`;
  if (!row) throw new MerchantNotFoundError(platformUuid);
  return toSummary(row);
}

/** A new URL is a fresh start: the endpoint is enabled again and its failure streak forgotten. */
export async function setWebhookUrl(db: Db, platformUuid: string, webhookUrl: string): Promise<MerchantSummary> {
  const updated = await db`
    update webhook_endpoints set url = ${webhookUrl}, status = 'enabled', disabled_reason = null, failing_since = null, updated_at = now()
    where platform_uuid = ${platformUuid}`;
  if (updated.count === 0) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/**
 * Adds a new secret; the ones live until now keep signing for `overlapMs` (never longer than they
 * already would), so the merchant can deploy the new one without rejecting a single delivery.
 */
export async function rotateWebhookSecret(
  db: Db,
  encryptionKey: Buffer,
  platformUuid: string,
  overlapMs: number,
): Promise<{ platformUuid: string; webhookSecret: string; previousSecretsExpireAt: string }> {
  const webhookSecret = newWebhookSecret();
  const expireAt = new Date(Date.now() + overlapMs);
  await db.begin(async (tx) => {
    const [endpoint] = await tx<{ id: string }[]>`select id from webhook_endpoints where platform_uuid = ${platformUuid} for update`;
    if (!endpoint) throw new MerchantNotFoundError(platformUuid);
    await tx`
      update webhook_secrets set expires_at = ${expireAt}
      where endpoint_id = ${endpoint.id} and (expires_at is null or expires_at > ${expireAt})`;
    await tx`insert into webhook_secrets (endpoint_id, secret_encrypted) values (${endpoint.id}, ${encrypt(encryptionKey, webhookSecret)})`;
  });
  return { platformUuid, webhookSecret, previousSecretsExpireAt: expireAt.toISOString() };
}

/** Stops new carts for the merchant; events of carts already created are still delivered. */
export async function deactivateMerchant(db: Db, platformUuid: string): Promise<MerchantSummary> {
  const updated = await db`update merchants set status = 'inactive', updated_at = now() where platform_uuid = ${platformUuid}`;
  if (updated.count === 0) throw new MerchantNotFoundError(platformUuid);
  return getMerchant(db, platformUuid);
}

/** The secrets that sign right now, newest first. */
export async function liveWebhookSecrets(db: Db, encryptionKey: Buffer, endpointId: string): Promise<string[]> {
  const rows = await db<{ secret_encrypted: Buffer }[]>`
    select secret_encrypted from webhook_secrets
    where endpoint_id = ${endpointId} and (expires_at is null or expires_at > now())
    order by created_at desc`;
  return rows.map((r) => decrypt(encryptionKey, r.secret_encrypted));
}

export class WebhookUrlRejectedError extends Error {
  override name = 'WebhookUrlRejectedError';
  constructor(readonly problems: string[]) {
    super(`webhook URL ${problems.join('; ')}`);
  }
}

async function assertWebhookUrl(url: string, environment: Environment): Promise<void> {
  const problems = await webhookUrlProblems(url, environment);
  if (problems.length) throw new WebhookUrlRejectedError(problems);
}

/** The operator's way in (CLI and API): the webhook URL is checked for the merchant's environment first. */
export async function registerMerchant(db: Db, encryptionKey: Buffer, merchant: NewMerchant): Promise<CreatedMerchant> {
  await assertWebhookUrl(merchant.webhookUrl, merchant.environment);
  return createMerchant(db, encryptionKey, merchant);
}

export async function changeWebhookUrl(db: Db, platformUuid: string, webhookUrl: string): Promise<MerchantSummary> {
  const merchant = await getMerchant(db, platformUuid);
  await assertWebhookUrl(webhookUrl, merchant.environment);
  return setWebhookUrl(db, platformUuid, webhookUrl);
}
