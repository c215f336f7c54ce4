import type { Keyring } from '../crypto.js';
import { openCustomerIn, sealCustomerIn, type SealedCustomer } from '../checkout/customer-seal.js';
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
