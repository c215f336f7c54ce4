import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { findActiveMerchant } from '../core/merchants/merchant-store.js';
import { rotateApiKey } from '../core/merchants/api-keys.js';
import { registerMerchant, type CreatedMerchant } from '../core/merchants/registration.js';
import { changeWebhookUrl } from '../core/merchants/webhook-endpoints.js';

/**
 * The sandbox merchant "Demo Store", created on the first `npm start` and reused after; its
 * credentials are written to `file` (the merchant's own copy, as a real merchant would keep it), and
 * handed to the store in demo-store/, which knows nothing else of ours.
 */
export async function ensureDemoMerchant(deps: { db: Db; config: Config }, file: string, webhookUrl: string): Promise<CreatedMerchant> {
  const save = (merchant: CreatedMerchant) => {
    writeFileSync(file, JSON.stringify(merchant, null, 2) + '\n', { mode: 0o600 });
    return merchant;
  };
  if (existsSync(file)) {
    let saved = JSON.parse(readFileSync(file, 'utf8')) as CreatedMerchant;
    if (await findActiveMerchant(deps.db, saved.platformUuid, 'sandbox')) {
      // A data folder from before API keys, or a store moved to another port.
      if (!saved.apiKey) saved = save({ ...saved, apiKey: (await rotateApiKey(deps.db, saved.platformUuid)).apiKey });
      if (saved.webhookUrl !== webhookUrl)
        saved = save({ ...saved, webhookUrl: (await changeWebhookUrl(deps.db, saved.platformUuid, webhookUrl, 'operator')).webhookUrl });
      return saved;
    }
  }
  return save(await registerMerchant(deps.db, deps.config.keyring, { name: 'Demo Store', environment: 'sandbox', webhookUrl }));
}
