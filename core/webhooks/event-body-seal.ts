import type { Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';
import { openCustomerIn, resealedCustomer, sealCustomerIn, type SealedCustomer } from '../checkout/customer-seal.js';
import type { Customer } from '../checkout/customer-seal.js';
import type { WebhookEventBody } from './events.js';

/**
 * An event's body as `webhook_events.payload` keeps it: as sent, but for the customer's contact,
 * sealed in place (core/checkout/customer-seal.ts). Every read that hands a body on (a delivery, the
 * events API, the event stream) opens it.
 */
export type StoredEventBody = Omit<WebhookEventBody, 'data'> & {
  data: Omit<WebhookEventBody['data'], 'customer'> & { customer?: Customer | SealedCustomer | null };
};

export function sealEventBody(keyring: Keyring, body: WebhookEventBody): StoredEventBody {
  return { ...body, data: sealCustomerIn(keyring, body.data) };
}

/** The body as the merchant receives it. Bodies recorded before the order model have no customer, and stay as they were. */
export function openEventBody(keyring: Keyring, stored: StoredEventBody): WebhookEventBody {
  return { ...stored, data: openCustomerIn(keyring, stored.data) } as WebhookEventBody;
}

/** Re-seals with the newest key every event's contact it did not seal (`npm run reseal`); returns how many. */
export async function resealEventCustomers(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ id: string; sealed: string }[]>`
    select id, payload->'data'->'customer'->>'sealed' as sealed from webhook_events where payload->'data'->'customer' ? 'sealed'`;
  let resealed = 0;
  for (const row of rows) {
    const fresh = resealedCustomer(keyring, Buffer.from(row.sealed, 'base64'));
    if (!fresh) continue;
    const updated = await db`
      update webhook_events set payload = jsonb_set(payload, '{data,customer,sealed}', to_jsonb(${fresh.toString('base64')}::text))
      where id = ${row.id} and payload->'data'->'customer'->>'sealed' = ${row.sealed}`;
    resealed += updated.count;
  }
  return resealed;
}
