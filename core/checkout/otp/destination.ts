import { keyedHash, type Keyring } from '../../crypto.js';

/**
 * Where one-time codes go, in the only form the database sees it: an HMAC of the normalized contact
 * (`parseContact(...).address`: lower-cased email or E.164 phone), with a key of its own derived from
 * the newest data key. Sends are counted per destination under it, across carts, without storing the
 * phone number or email in clear. A key rotation starts the counts afresh, within one window.
 */
export function otpDestinationKey(keyring: Keyring, normalizedContact: string): string {
  return keyedHash(keyring.deriveKey('otp-destination/v1'), normalizedContact);
}
