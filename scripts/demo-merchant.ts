import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { findActiveMerchant } from '../core/merchants/merchant-store.js';
import { rotateApiKey } from '../core/merchants/api-keys.js';
import { registerMerchant, type CreatedMerchant } from '../core/onboarding/registration.js';
import { changeWebhookUrl, createWebhookEndpoint, listWebhookEndpoints, updateWebhookEndpoint } from '../core/webhooks/endpoints.js';

/** The Demo Store's second endpoint: its accounting system, for refunds only (demo-store/accounting.ts). */
export interface DemoAccountingEndpoint {
  endpointId: string;
  url: string;
  /** Shown once when the endpoint was added; kept in the merchant's file like the first secret. */
  webhookSecret: string;
}

export type DemoMerchant = CreatedMerchant & { accounting?: DemoAccountingEndpoint };

/**
 * The sandbox merchant "Demo Store", created on the first `npm start` and reused after; its
 * credentials are written to `file` (the merchant's own copy, as a real merchant would keep it), and
 * handed to the store in demo-store/, which knows nothing else of ours. It has two endpoints: its
 * orders at `webhookUrl` (every event) and its accounting at `<webhookUrl>/accounting` (refunds only).
 */
export async function ensureDemoMerchant(deps: { db: Db; config: Config }, file: string, webhookUrl: string): Promise<Required<DemoMerchant>> {
  const save = (merchant: DemoMerchant) => {
    writeFileSync(file, JSON.stringify(merchant, null, 2) + '\n', { mode: 0o600 });
    return merchant;
  };
  let merchant: DemoMerchant | undefined;
  if (existsSync(file)) {
    let saved = JSON.parse(readFileSync(file, 'utf8')) as DemoMerchant;
    if (await findActiveMerchant(deps.db, saved.platformUuid, 'sandbox')) {
      // A data folder from before API keys, or a store moved to another port.
      if (!saved.apiKey) saved = save({ ...saved, apiKey: (await rotateApiKey(deps.db, saved.platformUuid)).apiKey });
      if (saved.webhookUrl !== webhookUrl)
        saved = save({ ...saved, webhookUrl: (await changeWebhookUrl(deps.db, saved.platformUuid, webhookUrl, 'operator', deps.config.webhooks)).webhookUrl });
      merchant = saved;
    }
  }
  merchant ??= save(await registerMerchant(deps.db, deps.config.keyring, { name: 'Demo Store', environment: 'sandbox', webhookUrl }, deps.config.webhooks));
  return { ...merchant, accounting: await ensureAccountingEndpoint(deps, merchant, `${webhookUrl}/accounting`, save) };
}

/** Adds the accounting endpoint to a merchant from before several endpoints, or moves it with the store. */
async function ensureAccountingEndpoint(
  deps: { db: Db; config: Config },
  merchant: DemoMerchant,
  url: string,
  save: (merchant: DemoMerchant) => DemoMerchant,
): Promise<DemoAccountingEndpoint> {
  const owner = { platformUuid: merchant.platformUuid, environment: merchant.environment };
  const existing = merchant.accounting && (await listWebhookEndpoints(deps.db, merchant.platformUuid)).find((e) => e.id === merchant.accounting!.endpointId);
  if (existing && merchant.accounting) {
    if (existing.url === url) return merchant.accounting;
    await updateWebhookEndpoint(deps.db, owner, existing.id, { url }, deps.config.webhooks);
    return save({ ...merchant, accounting: { ...merchant.accounting, url } }).accounting!;
  }
  const created = await createWebhookEndpoint(
    deps.db,
    deps.config.keyring,
    owner,
    { url, enabledEvents: ['order_refunded'], description: 'Accounting: refunds only' },
    deps.config.webhooks,
  );
  return save({ ...merchant, accounting: { endpointId: created.id, url, webhookSecret: created.secret } }).accounting!;
}
