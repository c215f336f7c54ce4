import type { Config } from '../config.js';
import { sivOpen, sivSeal, type Keyring } from '../crypto.js';
import { signedTokens } from '../signed-token.js';

/** The page's path the cardholder's bank sends them back to after a 3-D Secure challenge. */
export const THREE_D_SECURE_RETURN_PATH = '/3ds/return';

const SEALED = /^[A-Za-z0-9_-]{22,200}$/;
const CART_ID = /^[A-Za-z0-9_-]+$/;

const sealingKeys = (keyring: Keyring) => {
  const [encKeys, macKeys] = [keyring.deriveKeys('three-d-secure-return/v2/enc'), keyring.deriveKeys('three-d-secure-return/v2/mac')];
  return encKeys.map((encKey, i) => ({ encKey, macKey: macKeys[i]! }));
};

/**
 * The return links issued before the sealed form (`<cartId>.<expiry>.<hex HMAC>`): still accepted
 * until their own expiry (the challenge's bound and 15 minutes), so a customer mid-challenge during
 * the upgrade comes back; none is issued any more, and none outlives that bound.
 */
const legacyTokens = (keyring: Keyring) => signedTokens(keyring.deriveKey('three-d-secure-return/v1'), 0);

/**
 * `{CHECKOUT_BASE_URL}/3ds/return?token=…`, the link the processor gives the bank. The token is the
 * cartId sealed (core/crypto.ts sivSeal: encrypted and authenticated, under keys of its own): the
 * processor and the bank, which keep and log it, never read the cartId, the page's bearer token, in
 * it; only a return we issued can complete a cart's challenge. It is deterministic, the same on every
 * attempt for a cart: the processor keeps the return_url under the payment's idempotency key (the
 * cartId), and a retried charge must send the same parameters. It carries no expiry: it only
 * completes a challenge the session is waiting for, and the session's own bounds end that.
 */
export function threeDSecureReturnUrl(config: Pick<Config, 'keyring' | 'checkoutBaseUrl'>, cartId: string): string {
  if (!CART_ID.test(cartId)) throw new Error(`not a cartId: ${JSON.stringify(cartId)}`);
  const token = sivSeal(sealingKeys(config.keyring)[0]!, cartId).toString('base64url');
  return `${config.checkoutBaseUrl}${THREE_D_SECURE_RETURN_PATH}?token=${token}`;
}

/**
 * The cart a return token names, or undefined for a token we did not seal. Opens with every key of the
 * keyring (a challenge in flight across a key rotation), and an unexpired link of the old signed form.
 */
export function cartOfReturnToken(keyring: Keyring, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (SEALED.test(token)) {
    const sealed = Buffer.from(token, 'base64url');
    if (sealed.toString('base64url') !== token) return undefined;
    for (const keys of sealingKeys(keyring)) {
      const cartId = sivOpen(keys, sealed);
      if (cartId !== undefined) return CART_ID.test(cartId) ? cartId : undefined;
    }
    return undefined;
  }
  const verified = legacyTokens(keyring).verify(token);
  return verified?.fields.length === 1 ? verified.fields[0] : undefined;
}
