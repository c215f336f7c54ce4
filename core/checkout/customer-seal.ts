import { z } from 'zod';
import type { Keyring } from '../crypto.js';

/**
 * The customer's verified contact at rest: sealed with the keyring like the card vault and the
 * webhook secrets, wherever an order is kept: the ledger (carts.customer_sealed), every stored event
 * body (core/webhooks/event-body-seal.ts) and every kept answer that holds an order (capture and void
 * answers, core/orders/authorization.ts and api/merchant/idempotency.ts). Only reads for the merchant open it.
 */

export const customerSchema = z
  .union([
    z.strictObject({ email: z.string().meta({ description: 'The email address the code was sent to, lower-cased', example: 'jane@example.com' }) }),
    z.strictObject({ phone: z.string().meta({ description: 'The phone number the code was sent to, E.164', example: '+33612345678' }) }),
  ])
  .meta({
    id: 'Customer',
    description:
      'The contact the customer proved with the one-time code: an email address or a phone number, whichever they gave. Personal data: yours to use for this order (a receipt, its delivery) under your own privacy terms; we keep it sealed at rest (docs/security.md).',
  });
export type Customer = z.output<typeof customerSchema>;

export function sealCustomer(keyring: Keyring, customer: Customer): Buffer {
  return keyring.seal(JSON.stringify(customer));
}

export function openCustomer(keyring: Keyring, sealed: Buffer | null): Customer | null {
  return sealed ? (JSON.parse(keyring.open(sealed)) as Customer) : null;
}

/** Sealed with an older key than the keyring's newest: what `npm run reseal` seals again. */
export function resealedCustomer(keyring: Keyring, sealed: Buffer): Buffer | undefined {
  return keyring.sealedWith(sealed) === keyring.sealingKeyId ? undefined : keyring.seal(keyring.open(sealed));
}

/** Where an order kept as JSON says `customer`: the sealed contact, base64. */
export type SealedCustomer = { sealed: string };

const isSealed = (value: unknown): value is SealedCustomer => typeof value === 'object' && value !== null && 'sealed' in value;
const hasCustomer = (value: unknown): value is { customer: Customer } =>
  typeof value === 'object' &&
  value !== null &&
  'customer' in value &&
  typeof value.customer === 'object' &&
  value.customer !== null &&
  !isSealed(value.customer);

/** An order (or anything else) as JSON may keep it: its `customer`, if any, sealed in place. */
export function sealCustomerIn<T>(keyring: Keyring, value: T): T {
  return hasCustomer(value) ? { ...value, customer: { sealed: sealCustomer(keyring, value.customer).toString('base64') } } : value;
}

/**
 * The value as it was before sealCustomerIn. Spreading keeps `customer` where it was among the keys,
 * so a kept answer or event body serializes to the same bytes on every read.
 */
export function openCustomerIn<T>(keyring: Keyring, value: T): T {
  if (typeof value !== 'object' || value === null || !('customer' in value) || !isSealed(value.customer)) return value;
  return { ...value, customer: openCustomer(keyring, Buffer.from(value.customer.sealed, 'base64')) };
}
