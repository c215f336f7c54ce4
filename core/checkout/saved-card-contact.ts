import { keyedHash, type Keyring } from '../crypto.js';
import { DOTLESS_DOMAINS, foldMailbox, otpDestinationKey } from './otp/destination.js';

/**
 * Providers documented to deliver `local+tag@` to `local@`: Gmail (and googlemail.com), Outlook.com
 * (outlook.com, hotmail.com, live.com), iCloud Mail, Fastmail and Proton Mail. Elsewhere a tag may be another
 * mailbox (a server without plus addressing, a catch-all), so it is kept.
 */
const PLUS_ADDRESSING_DOMAINS = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'icloud.com',
  'fastmail.com',
  'proton.me',
  'protonmail.com',
]);

/**
 * The mailbox a verified contact's saved cards belong to: the address as its provider delivers it.
 * Unlike the code limits' foldMailbox, which counts every `+tag` as its mailbox to be strict, this
 * folds only where the provider is known to ignore tags or dots, since a wider fold would offer one
 * person's cards to another's mailbox. `address` is parseContact's (lower-cased, ASCII domain); a
 * phone number (E.164) is its own key.
 */
export function savedCardContact(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  const domain = address.slice(at + 1);
  let local = address.slice(0, at);
  if (PLUS_ADDRESSING_DOMAINS.has(domain)) local = local.split('+')[0] || local;
  // Gmail alone documents that dots do not matter (DOTLESS_DOMAINS).
  const alias = DOTLESS_DOMAINS.get(domain);
  if (alias) local = local.replaceAll('.', '') || local;
  return `${local}@${alias ?? domain}`;
}

/** The keyed hash saved cards are kept under (migration 032's contact_key), never the contact in clear. */
export function savedCardContactKey(keyring: Keyring, address: string): string {
  return keyedHash(keyring.deriveKey('saved-card-contact/v1'), savedCardContact(address));
}

/**
 * Cards saved before saved cards had their own key were kept under the code limits' fold of the
 * contact (otpDestinationKey of foldMailbox). Such a card belongs to this exact contact only when its
 * address is its own fold: then its old key, to re-key it (rekeySavedCards); otherwise none.
 */
export function legacySavedCardContactKey(keyring: Keyring, address: string): string | undefined {
  return foldMailbox(address) === address ? otpDestinationKey(keyring, address) : undefined;
}

/** Every key a contact's cards may be kept under, with every data key (an operator's erase finds them all). */
export function savedCardContactKeys(keyring: Keyring, address: string): string[] {
  const exact = keyring.deriveKeys('saved-card-contact/v1').map((key) => keyedHash(key, savedCardContact(address)));
  const legacy = keyring.deriveKeys('otp-destination/v1').map((key) => keyedHash(key, foldMailbox(address)));
  return [...exact, ...legacy];
}
