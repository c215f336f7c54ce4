import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cartOfReturnToken, threeDSecureReturnUrl } from '../../core/checkout/three-d-secure.js';
import { createKeyring } from '../../core/crypto.js';
import { signedTokens } from '../../core/signed-token.js';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const keyring = createKeyring([k1]);
const config = { keyring, checkoutBaseUrl: 'https://pay.example', threeDSecureChallengeMs: 10 * 60_000 };
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/**
 * The `/3ds/return` link goes to the processor and the cardholder's bank. The cartId is the checkout
 * page's bearer token: the link must not carry it in any readable form, and must be the same on every
 * attempt of a payment (the processor keeps the return_url under the payment's idempotency key).
 */
describe('the 3-D Secure return token', () => {
  afterEach(() => vi.useRealTimers());

  it('does not contain the cartId, in any usual encoding', () => {
    const cartId = randomUUID();
    const url = threeDSecureReturnUrl(config, cartId);
    const token = tokenOf(url);
    for (const form of [cartId, cartId.replaceAll('-', ''), Buffer.from(cartId).toString('base64url'), Buffer.from(cartId).toString('hex')]) {
      expect(url).not.toContain(form);
      expect(token.toLowerCase()).not.toContain(form.toLowerCase());
    }
    expect(cartOfReturnToken(keyring, token)).toBe(cartId);
  });

  it('is the same for a cart on every attempt, an hour apart; another cart has another', () => {
    const cartId = randomUUID();
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const first = threeDSecureReturnUrl(config, cartId);
    vi.advanceTimersByTime(3600_000);
    expect(threeDSecureReturnUrl(config, cartId)).toBe(first);
    expect(threeDSecureReturnUrl(config, randomUUID())).not.toBe(first);
  });

  it('is refused when altered, sealed by another keyring, or not a token at all', () => {
    const cartId = randomUUID();
    const token = tokenOf(threeDSecureReturnUrl(config, cartId));
    const flipped = (i: number) => token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    for (const i of [0, 5, Math.floor(token.length / 2), token.length - 1]) expect(cartOfReturnToken(keyring, flipped(i))).toBeUndefined();
    expect(cartOfReturnToken(createKeyring([k2]), token)).toBeUndefined();
    for (const bad of [undefined, '', 'x', token.slice(0, -4), `${token}AAAA`, cartId]) expect(cartOfReturnToken(keyring, bad)).toBeUndefined();
  });

  it('still opens after a key rotation (a challenge in flight while the keyring gains a key)', () => {
    const cartId = randomUUID();
    const token = tokenOf(threeDSecureReturnUrl(config, cartId));
    expect(cartOfReturnToken(createKeyring([k1, k2]), token)).toBe(cartId);
  });

  it('accepts the old signed form (cartId.expiry.mac) until its own expiry, for challenges open across the upgrade', () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const cartId = randomUUID();
    const old = signedTokens(keyring.deriveKey('three-d-secure-return/v1'), 25 * 60_000).issue([cartId]);
    expect(cartOfReturnToken(keyring, old)).toBe(cartId);
    vi.advanceTimersByTime(25 * 60_000);
    expect(cartOfReturnToken(keyring, old)).toBeUndefined();
  });
});
