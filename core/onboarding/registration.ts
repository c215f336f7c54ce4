import { randomUUID } from 'node:crypto';
import type { Environment } from '../config.js';
import type { Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';
import { newApiKey, storedApiKey } from '../merchants/api-keys.js';
import { insertMerchant } from '../merchants/merchant-store.js';
import { normalizeDomains } from '../merchants/merchants.js';
import { NO_LOOPBACK, webhookTargets, type LoopbackSetting } from '../outbound/url-safety.js';
import { assertWebhookUrl } from '../webhooks/endpoints.js';
import { newWebhookSecret } from '../webhooks/signing.js';

/**
 * How a merchant comes to exist, for operators (CLI and API) and the stack's own seeding: the webhook
 * URL is checked for the merchant's environment (core/outbound/url-safety.ts) and each domain
 * (core/merchants/domains.ts) before anything is stored.
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

/**
 * Creates a merchant with its webhook endpoint and a first signing secret, once the URL passes its
 * checks: those its deliveries will meet, given the deployment's `config.webhooks` (loopback refused without).
 */
export async function registerMerchant(db: Db, keyring: Keyring, merchant: NewMerchant, deployment: LoopbackSetting = NO_LOOPBACK): Promise<CreatedMerchant> {
  normalizeDomains(merchant.domains ?? []);
  await assertWebhookUrl(merchant.webhookUrl, webhookTargets(merchant.environment, deployment));
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
