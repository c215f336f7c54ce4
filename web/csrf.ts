import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import { randomToken, type Keyring, type SecretKey } from '../core/crypto.js';

/**
 * Signed double-submit CSRF tokens. The browser holds a random nonce in an HttpOnly, SameSite=Strict
 * cookie; every form carries HMAC(key, cartId, nonce) in a hidden field. A forged post from another
 * site has neither the cookie (SameSite) nor a way to compute the field (the key), and a field lifted
 * from one cart or one browser is useless for another.
 */

export const CSRF_COOKIE = 'checkout_csrf';
export const CSRF_FIELD = 'csrf';

/** A key of its own, so a CSRF token can never be confused with an OTP hash or a vault seal. */
export function deriveCsrfKey(keyring: Keyring): KeyObject {
  return keyring.deriveKey('csrf/v1');
}

export function newCsrfNonce(): string {
  return randomToken(16);
}

export function csrfToken(key: SecretKey, cartId: string, nonce: string): string {
  return createHmac('sha256', key).update(`${cartId}\n${nonce}`).digest('base64url');
}

export function csrfTokenValid(key: SecretKey, cartId: string, nonce: string | undefined, submitted: string | undefined): boolean {
  if (!nonce || !submitted) return false;
  const expected = Buffer.from(csrfToken(key, cartId, nonce));
  const given = Buffer.from(submitted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
