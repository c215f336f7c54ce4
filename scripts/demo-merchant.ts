import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { createMerchant, type CreatedMerchant } from '../core/merchants.js';

export const DEMO_MERCHANT_PORT = 3002;

/**
 * The sandbox merchant "Demo Store", created on the first `npm start` and reused after; its
 * credentials are written to `file` (the merchant's own copy, as a real merchant would keep it).
 */
export async function ensureDemoMerchant(deps: { db: Db; config: Config }, file: string, webhookUrl: string): Promise<CreatedMerchant> {
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as CreatedMerchant;
    const [row] = await deps.db`select 1 from merchants where platform_uuid = ${saved.platformUuid} and status = 'active'`;
    if (row) return saved;
  }
  const merchant = await createMerchant(deps.db, deps.config.dataEncryptionKey, { name: 'Demo Store', environment: 'sandbox', webhookUrl });
  writeFileSync(file, JSON.stringify(merchant, null, 2) + '\n', { mode: 0o600 });
  return merchant;
}
