import type { Config } from '../config.js';
import { sivOpen, sivSeal, type Keyring } from '../crypto.js';

/**
 * The token of an abandoned cart's recovery link, `{CHECKOUT_BASE_URL}/r/<token>`
 * (docs/abandoned-cart-recovery.md): the cartId and the link's expiry sealed together (core/crypto.ts
 * sivSeal, under keys of their own), so the link never shows the cartId, the page's bearer token, and
 * only a link we issued opens. Deterministic: the Order API and the order_abandoned event compute it
 * apart, from the same row, and must give the same URL.
 */

export const RECOVERY_PATH = '/r';

/** How long a recovery link opens a session, from the abandonment. */
export const RECOVERY_LINK_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
const SEALED = /^[A-Za-z0-9_-]{22,200}$/;
const CART_ID = /^[A-Za-z0-9_-]+$/;
const PLAINTEXT = /^([A-Za-z0-9_-]+)\.(\d{1,15})$/;

const sealingKeys = (keyring: Keyring) => {
  const [encKeys, macKeys] = [keyring.deriveKeys('cart-recovery/v1/enc'), keyring.deriveKeys('cart-recovery/v1/mac')];
  return encKeys.map((encKey, i) => ({ encKey, macKey: macKeys[i]! }));
};

/**
 * The link of a cart abandoned at `abandonedAt` (its session's expiresOn, so every reader of the row
 * agrees): valid RECOVERY_LINK_DAYS from then, to the second. Sealed with the keyring's newest key; after
 * a rotation the Order API gives a new token, and the one the event carried still opens (recoveredCartOf).
 */
export function recoveryUrl(config: Pick<Config, 'keyring' | 'checkoutBaseUrl'>, cartId: string, abandonedAt: Date): string {
  if (!CART_ID.test(cartId)) throw new Error(`not a cartId: ${JSON.stringify(cartId)}`);
  const expiresAtSeconds = Math.floor((abandonedAt.getTime() + RECOVERY_LINK_DAYS * DAY_MS) / 1000);
  const token = sivSeal(sealingKeys(config.keyring)[0]!, `${cartId}.${expiresAtSeconds}`).toString('base64url');
  return `${config.checkoutBaseUrl}${RECOVERY_PATH}/${token}`;
}

export type RecoveryToken = { cartId: string; expired: boolean };

/** The cart a recovery token names and whether its link has expired at `now`; undefined for a token we did not seal. */
export function recoveredCartOf(keyring: Keyring, token: string, now: Date): RecoveryToken | undefined {
  if (!SEALED.test(token)) return undefined;
  const sealed = Buffer.from(token, 'base64url');
  if (sealed.toString('base64url') !== token) return undefined;
  for (const keys of sealingKeys(keyring)) {
    const opened = sivOpen(keys, sealed);
    if (opened === undefined) continue;
    const match = PLAINTEXT.exec(opened);
    return match ? { cartId: match[1]!, expired: now.getTime() >= Number(match[2]) * 1000 } : undefined;
  }
  return undefined;
}
