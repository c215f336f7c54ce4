import { describe, expect, it } from 'vitest';
import { paymentRecord, threeDSecureResultOf } from '../../core/checkout/payment-record.js';

/** One payment record from Pay to the webhook body (core/checkout/payment-record.ts). */
describe('the payment record', () => {
  it('is built from the card once, with the facts of the session that takes it', () => {
    expect(paymentRecord({ brand: 'visa', last4: '4242' }, { manual: false, savedCards: true })).toEqual({ brand: 'visa', last4: '4242', savedCard: false });
    expect(paymentRecord({ brand: 'visa', last4: '1111', savedCardId: 'sc_x' }, { manual: true, savedCards: true })).toEqual({
      brand: 'visa',
      last4: '1111',
      captureMethod: 'manual',
      savedCard: true,
    });
    // A session before 1.2 knows nothing of saved cards: the record says nothing of them.
    expect(paymentRecord({ brand: 'mastercard', last4: '4444' }, { manual: false, savedCards: false })).toEqual({ brand: 'mastercard', last4: '4444' });
  });

  it('gives the ledger 3-D Secure’s result, also from a step a session scheduled before the record (flat string)', () => {
    expect(threeDSecureResultOf({ brand: 'visa', last4: '3184', threeDSecure: { result: 'authenticated' } })).toBe('authenticated');
    const legacy = { brand: 'visa', last4: '3184', threeDSecure: 'frictionless' } as unknown as Parameters<typeof threeDSecureResultOf>[0];
    expect(threeDSecureResultOf(legacy)).toBe('frictionless');
    expect(threeDSecureResultOf({ brand: 'visa', last4: '4242' })).toBeUndefined();
    expect(threeDSecureResultOf(undefined)).toBeUndefined();
  });
});
