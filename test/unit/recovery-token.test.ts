import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requestIdentity } from '../../application/carts/request-identity.js';
import { createCartRequestSchema, type CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { RECOVERY_LINK_DAYS, RECOVERY_PATH, recoveredCartOf, recoveryUrl } from '../../core/checkout/recovery-token.js';
import { createKeyring } from '../../core/crypto.js';
import { validCartRequest } from '../support/fixtures.js';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const config = { keyring: createKeyring([k1]), checkoutBaseUrl: 'https://pay.example' };
const cartId = 'q3Vh0Xc2b1TzM9r8L5kA7wYe';
const abandonedAt = new Date('2030-01-01T12:00:00.000Z');
const DAY_MS = 24 * 3_600_000;
const tokenOf = (url: string) => url.slice(`${config.checkoutBaseUrl}${RECOVERY_PATH}/`.length);

/**
 * The recovery link goes to the merchant and, by them, to the customer's mailbox: it must not carry
 * the cartId (the page's bearer token) readably, must be the same wherever the order is built (the
 * event and the Order API), and must open only as we sealed it, until its expiry.
 */
describe('the recovery link token', () => {
  it('is {CHECKOUT_BASE_URL}/r/<token>, the same for the same cart and abandonment, without the cartId', () => {
    const url = recoveryUrl(config, cartId, abandonedAt);
    expect(url.startsWith('https://pay.example/r/')).toBe(true);
    expect(recoveryUrl(config, cartId, new Date(abandonedAt))).toBe(url);
    expect(recoveryUrl(config, 'anotherCartId', abandonedAt)).not.toBe(url);
    expect(url).not.toContain(cartId);
    expect(Buffer.from(tokenOf(url), 'base64url').toString('latin1')).not.toContain(cartId);
    expect(() => recoveryUrl(config, 'a.b', abandonedAt)).toThrow(/not a cartId/);
  });

  it(`opens to its cart until ${RECOVERY_LINK_DAYS} days after the abandonment, then says it expired`, () => {
    const token = tokenOf(recoveryUrl(config, cartId, abandonedAt));
    const end = abandonedAt.getTime() + RECOVERY_LINK_DAYS * DAY_MS;
    expect(recoveredCartOf(config.keyring, token, new Date(end - 1000))).toEqual({ cartId, expired: false });
    expect(recoveredCartOf(config.keyring, token, new Date(end))).toEqual({ cartId, expired: true });
  });

  it('does not open tampered, foreign or malformed tokens', () => {
    const token = tokenOf(recoveryUrl(config, cartId, abandonedAt));
    const flipped = Buffer.from(token, 'base64url');
    flipped[flipped.length - 1]! ^= 1;
    const foreign = tokenOf(recoveryUrl({ ...config, keyring: createKeyring([k2]) }, cartId, abandonedAt));
    for (const bad of [flipped.toString('base64url'), foreign, cartId, '', `${token}=`, 'x'.repeat(300)])
      expect(recoveredCartOf(config.keyring, bad, abandonedAt), bad).toBeUndefined();
  });

  it('still opens after a key rotation, while the Order API seals anew with the newest key', () => {
    const before = recoveryUrl(config, cartId, abandonedAt);
    const rotated = { ...config, keyring: createKeyring([k1, k2]) };
    expect(recoveredCartOf(rotated.keyring, tokenOf(before), abandonedAt)).toEqual({ cartId, expired: false });
    expect(recoveryUrl(rotated, cartId, abandonedAt)).not.toBe(before);
  });
});

describe('cart.recovery in create-cart', () => {
  const request = (recovery?: unknown) => {
    const valid = validCartRequest('7b0c5c2e-4a8f-4f8e-9d3c-2a1b0c9d8e7f');
    return { cartObject: { ...valid.cartObject, cart: { ...valid.cartObject.cart, ...(recovery === undefined ? {} : { recovery }) } } };
  };
  const issues = (recovery: unknown) => createCartRequestSchema.safeParse(request(recovery)).error?.issues.map((i) => i.path.join('.')) ?? [];

  it('takes {enabled, reminderMinutes 5 to 10080} and refuses anything else', () => {
    for (const ok of [{ enabled: true }, { enabled: false }, { enabled: true, reminderMinutes: 5 }, { enabled: true, reminderMinutes: 10080 }])
      expect(issues(ok), JSON.stringify(ok)).toEqual([]);
    expect(issues({ enabled: true, reminderMinutes: 4 })).toEqual(['cartObject.cart.recovery.reminderMinutes']);
    expect(issues({ enabled: true, reminderMinutes: 10081 })).toEqual(['cartObject.cart.recovery.reminderMinutes']);
    expect(issues({ enabled: true, reminderMinutes: 60.5 })).toEqual(['cartObject.cart.recovery.reminderMinutes']);
    expect(issues({ enabled: 'yes' })).toEqual(['cartObject.cart.recovery.enabled']);
    expect(issues({})).toEqual(['cartObject.cart.recovery.enabled']);
    expect(issues({ enabled: true, extra: 1 })).toEqual(['cartObject.cart.recovery']);
  });

  it('is one request under an Idempotency-Key when absent or disabled, and when enabled with or without the default reminder', () => {
    const identity = (recovery?: unknown) => requestIdentity(request(recovery) as CreateCartRequest, 45 * 60_000);
    expect(identity({ enabled: false })).toEqual(identity());
    expect(identity({ enabled: false, reminderMinutes: 30 })).toEqual(identity());
    expect(identity({ enabled: true })).toEqual(identity({ enabled: true, reminderMinutes: 60 }));
    expect(identity({ enabled: true })).not.toEqual(identity());
    expect(identity({ enabled: true, reminderMinutes: 30 })).not.toEqual(identity({ enabled: true }));
  });
});
