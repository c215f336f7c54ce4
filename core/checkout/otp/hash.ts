import { keyedHash, type Keyring } from '../../crypto.js';

/**
 * The only form in which a one-time code travels past the activity that sent it: an HMAC bound to
 * the cart, so workflow history never holds a code in clear and a hash is useless for another cart.
 */
export function otpHash(keyring: Keyring, cartId: string, code: string): string {
  return keyedHash(keyring.deriveKey('otp/v1'), `${cartId}:${code}`);
}
