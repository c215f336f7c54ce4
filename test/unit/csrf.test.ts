import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../core/crypto.js';
import { csrfToken, csrfTokenValid, deriveCsrfKey, newCsrfNonce } from '../../web/csrf.js';

const rawKey = randomBytes(32);
const dataKey = createKeyring([{ id: 'k1', key: rawKey }]);
const key = deriveCsrfKey(dataKey);
const cartId = 'AAAAAAAAAAAAAAAAAAAAAAAA';

describe('CSRF double-submit tokens', () => {
  it('accepts the token made for this cart and this browser nonce', () => {
    const nonce = newCsrfNonce();
    expect(csrfTokenValid(key, cartId, nonce, csrfToken(key, cartId, nonce))).toBe(true);
  });

  it('refuses a missing cookie or a missing field', () => {
    const nonce = newCsrfNonce();
    const token = csrfToken(key, cartId, nonce);
    expect(csrfTokenValid(key, cartId, undefined, token)).toBe(false);
    expect(csrfTokenValid(key, cartId, nonce, undefined)).toBe(false);
    expect(csrfTokenValid(key, cartId, nonce, '')).toBe(false);
    expect(csrfTokenValid(key, cartId, '', token)).toBe(false);
  });

  it('refuses a token lifted from another cart, another browser or made with another key', () => {
    const nonce = newCsrfNonce();
    const token = csrfToken(key, cartId, nonce);
    expect(csrfTokenValid(key, 'BBBBBBBBBBBBBBBBBBBBBBBB', nonce, token)).toBe(false);
    expect(csrfTokenValid(key, cartId, newCsrfNonce(), token)).toBe(false);
    expect(csrfTokenValid(deriveCsrfKey(createKeyring([{ id: 'k1', key: randomBytes(32) }])), cartId, nonce, token)).toBe(false);
  });

  it('refuses any altered token', () => {
    const nonce = newCsrfNonce();
    const token = csrfToken(key, cartId, nonce);
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 64 }), (forged) => {
        fc.pre(forged !== token);
        expect(csrfTokenValid(key, cartId, nonce, forged)).toBe(false);
      }),
    );
    const flipped = (token[0] === 'A' ? 'B' : 'A') + token.slice(1);
    expect(csrfTokenValid(key, cartId, nonce, flipped)).toBe(false);
  });

  it('derives a key of its own rather than using the data key directly', () => {
    expect(key.export().equals(rawKey)).toBe(false);
    expect(key.symmetricKeySize).toBe(32);
    expect(deriveCsrfKey(dataKey).equals(key)).toBe(true);
  });

  it('gives every browser a fresh 128-bit nonce', () => {
    const nonces = new Set(Array.from({ length: 1000 }, newCsrfNonce));
    expect(nonces.size).toBe(1000);
    for (const n of nonces) expect(n).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
