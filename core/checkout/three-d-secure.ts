import type { Config } from '../config.js';
import type { Keyring } from '../crypto.js';
import { signedTokens } from '../signed-token.js';

/** The page's path the cardholder's bank sends them back to after a 3-D Secure challenge. */
export const THREE_D_SECURE_RETURN_PATH = '/3ds/return';

/** A return link still works a while after the challenge's bound, so a late customer sees the outcome, not an error. */
const RETURN_LINK_MARGIN_MS = 15 * 60_000;

const tokens = (keyring: Keyring, lifetimeMs: number) => signedTokens(keyring.deriveKey('three-d-secure-return/v1'), lifetimeMs);

/**
 * `{CHECKOUT_BASE_URL}/3ds/return?token=…`, the link the processor gives the bank: the token is the
 * cartId signed with a key of its own, so only a return we issued can complete a cart's challenge.
 */
export function threeDSecureReturnUrl(config: Pick<Config, 'keyring' | 'checkoutBaseUrl' | 'threeDSecureChallengeMs'>, cartId: string): string {
  const token = tokens(config.keyring, config.threeDSecureChallengeMs + RETURN_LINK_MARGIN_MS).issue([cartId]);
  return `${config.checkoutBaseUrl}${THREE_D_SECURE_RETURN_PATH}?token=${token}`;
}

/** The cart a return token names, or undefined for a token we did not sign, or one that expired. */
export function cartOfReturnToken(keyring: Keyring, token: string | undefined): string | undefined {
  const verified = tokens(keyring, 0).verify(token);
  return verified?.fields.length === 1 ? verified.fields[0] : undefined;
}
