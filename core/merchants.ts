import { randomBytes, randomUUID } from 'node:crypto';
import { encrypt } from './crypto.js';
import type { Db } from './db/client.js';
import type { Environment } from './config.js';

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

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Creates a merchant with its webhook endpoint and a first signing secret, all or nothing. */
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
