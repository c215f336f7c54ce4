import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signedTokens } from '../../core/signed-token.js';

const key = randomBytes(32);

describe('signed, expiring tokens', () => {
  afterEach(() => vi.useRealTimers());

  it('gives back the fields of a token it issued, until it expires', () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const tokens = signedTokens(key, 60_000);
    const token = tokens.issue(['m', '0b8f4c1e-3a8e-4c55-9d0c-5a1f2e3d4c5b', 'key_1']);
    expect(tokens.verify(token)).toEqual({ fields: ['m', '0b8f4c1e-3a8e-4c55-9d0c-5a1f2e3d4c5b', 'key_1'], expiresAt: Date.parse('2030-01-01T00:01:00Z') });
    vi.advanceTimersByTime(60_000);
    expect(tokens.verify(token)).toBeUndefined();
  });

  it('keeps the codec cookie format: no fields is <expiry>.<hex HMAC>', () => {
    expect(signedTokens(key, 1000).issue([])).toMatch(/^\d{13}\.[0-9a-f]{64}$/);
  });

  it('refuses a changed field, a changed expiry, another key, and anything malformed', () => {
    const tokens = signedTokens(key, 60_000);
    const token = tokens.issue(['m', 'a', 'b']);
    const [kind, a, b, expiry, mac] = token.split('.');
    expect(tokens.verify([kind, 'x', b, expiry, mac].join('.'))).toBeUndefined();
    expect(tokens.verify([kind, a, b, String(Number(expiry) + 1), mac].join('.'))).toBeUndefined();
    expect(tokens.verify([kind, b, expiry, mac].join('.'))).toBeUndefined();
    expect(signedTokens(randomBytes(32), 60_000).verify(token)).toBeUndefined();
    for (const bad of [undefined, '', 'x', `${token}.`, token.toUpperCase(), token.replace(/.$/, 'g')]) expect(tokens.verify(bad)).toBeUndefined();
  });

  it('refuses to sign a field that could be mistaken for the separator', () => {
    expect(() => signedTokens(key, 1000).issue(['a.b'])).toThrow(/must be an id/);
    expect(() => signedTokens(key, 1000).issue([''])).toThrow(/must be an id/);
  });
});
