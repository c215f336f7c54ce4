import { deriveKey, keyedHash } from '../crypto.js';

/**
 * Where one-time codes go, in the only form the database sees it: an HMAC of the normalized contact
 * (`parseContact(...).address`: lower-cased email or E.164 phone), with a key of its own derived from
 * the data key. Sends are counted per destination under it, across carts, without storing the
 * phone number or email in clear.
 */
export function otpDestinationKey(dataKey: Buffer, normalizedContact: string): string {
  return keyedHash(deriveKey(dataKey, 'otp-destination/v1'), normalizedContact);
}
