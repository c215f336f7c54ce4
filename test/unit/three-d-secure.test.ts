import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cartOfReturnToken, THREE_D_SECURE_RETURN_PATH, threeDSecureReturnUrl } from '../../core/checkout/three-d-secure.js';
import { createKeyring, sivSeal } from '../../core/crypto.js';
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

  it('is a query parameter of the page’s /3ds/return, on the configured checkout address', () => {
    const url = new URL(threeDSecureReturnUrl(config, randomUUID()));
    expect(`${url.origin}${url.pathname}`).toBe(`https://pay.example${THREE_D_SECURE_RETURN_PATH}`);
    expect(THREE_D_SECURE_RETURN_PATH).toBe('/3ds/return');
    expect([...url.searchParams.keys()]).toEqual(['token']);
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('is issued only for a cartId, never for text that could carry something else', () => {
    for (const notCartId of ['', 'a.b', 'a/b', 'a b', 'cart?x=1', 'é'])
      expect(() => threeDSecureReturnUrl(config, notCartId), notCartId).toThrow('not a cartId');
  });

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

  it('is refused when it spells the same bytes another way: one cart has one link', () => {
    const token = tokenOf(threeDSecureReturnUrl(config, randomUUID()));
    // 52 bytes (a 16-byte IV, a 36-character cartId): the last base64url character holds 2 of their bits and 4 unused ones.
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelt = token.slice(0, -1) + ALPHABET[ALPHABET.indexOf(token.at(-1)!) ^ 1]!;
    expect(Buffer.from(respelt, 'base64url')).toEqual(Buffer.from(token, 'base64url'));
    expect(cartOfReturnToken(keyring, respelt)).toBeUndefined();
  });

  it('is refused when what it seals, under the right keys, is not a cartId', () => {
    const keys = { encKey: keyring.deriveKeys('three-d-secure-return/v2/enc')[0]!, macKey: keyring.deriveKeys('three-d-secure-return/v2/mac')[0]! };
    expect(cartOfReturnToken(keyring, sivSeal(keys, randomUUID()).toString('base64url'))).toBeDefined();
    expect(cartOfReturnToken(keyring, sivSeal(keys, 'cart.1.x').toString('base64url'))).toBeUndefined();
  });

  it('gives back every cartId it seals, the same token each time (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), (cartId) => {
        const url = threeDSecureReturnUrl(config, cartId);
        expect(threeDSecureReturnUrl(config, cartId)).toBe(url);
        expect(cartOfReturnToken(keyring, tokenOf(url))).toBe(cartId);
      }),
    );
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

  it('refuses an old signed form made under another key, or for more than a cart', () => {
    const cartId = randomUUID();
    expect(cartOfReturnToken(keyring, signedTokens(createKeyring([k2]).deriveKey('three-d-secure-return/v1'), 60_000).issue([cartId]))).toBeUndefined();
    expect(cartOfReturnToken(keyring, signedTokens(keyring.deriveKey('three-d-secure-return/v1'), 60_000).issue([cartId, 'other']))).toBeUndefined();
  });
});
