import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CART_STATUSES } from '../../core/checkout/session.js';
import { currentDetails, sessionMetadata } from '../../workflows/cart-session/operator-details.js';
import type { CartSessionState } from '../../workflows/cart-session/messages.js';
import { activitySummary } from '../../workflows/operator-summaries.js';
import { personalDataIn } from '../support/personal-data.js';

const EMAIL = 'jane.doe@example.com';
const PHONE = '+33 6 12 34 56 78';
const PAN = '4242424242424242';

const states = fc.record({
  cartId: fc.stringMatching(/^[A-Za-z0-9_-]{24}$/),
  status: fc.constantFrom(...CART_STATUSES),
  step: fc.constantFrom('contact', 'code', 'card', 'processing', 'done' as const),
  expiresOn: fc.date({ min: new Date('2020-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  contactHint: fc.constantFrom('j***@example.com', '•••• 5678', EMAIL, PHONE),
  contactKey: fc.stringMatching(/^[0-9a-f]{64}$/),
  otp: fc.option(
    fc.record({
      attemptsLeft: fc.integer({ min: 0, max: 5 }),
      resendsLeft: fc.integer({ min: 0, max: 3 }),
      resendAvailableAt: fc.constant('2030-01-31T10:42:00.000Z'),
      codeExpiresAt: fc.constant('2030-01-31T10:47:00.000Z'),
    }),
    { nil: undefined },
  ),
  payment: fc.option(fc.record({ brand: fc.constantFrom('visa', 'mastercard', 'amex'), last4: fc.stringMatching(/^\d{4}$/) }), { nil: undefined }),
  failureCode: fc.option(fc.constantFrom('card_declined', 'otp_locked', 'processor_error'), { nil: undefined }),
}) as fc.Arbitrary<CartSessionState>;

describe('what the Temporal UI says about a session', () => {
  it('says where the session is in words, with attempts left and the card as brand and last 4', () => {
    const base: CartSessionState = {
      cartId: 'c'.repeat(24),
      status: 'pending',
      step: 'code',
      expiresOn: '2030-01-31T11:00:00.000Z',
      contactHint: 'j***@example.com',
    };
    const otp = { attemptsLeft: 4, resendsLeft: 3, resendAvailableAt: '2030-01-31T10:42:30.000Z', codeExpiresAt: '2030-01-31T10:47:00.000Z' };
    expect(currentDetails({ ...base, otp })).toBe("waiting for the customer's code — 4 attempts left, 3 resends left, code valid until 10:47 UTC");
    expect(currentDetails({ ...base, status: 'processing', step: 'processing', payment: { brand: 'visa', last4: '1111' } })).toBe('charging visa ••1111');
    expect(currentDetails({ ...base, status: 'paid', step: 'done', payment: { brand: 'visa', last4: '1111' } })).toContain(
      'paid with visa ••1111 — order_created',
    );
    expect(currentDetails({ ...base, step: 'contact' }, { sending: true })).toBe('sending the one-time code');
  });

  it('holds no email, phone number, card number, card token, code or code hash, whatever the state', () => {
    fc.assert(
      fc.property(states, fc.boolean(), fc.option(fc.integer({ min: 0, max: 4e12 }), { nil: undefined }), (state, sending, resolvingUntil) => {
        const text = currentDetails(state, { sending, ...(resolvingUntil !== undefined ? { resolvingUntil } : {}) });
        // The details name the session's delivery workflow by its cartId on purpose: a digit run the
        // random id happens to hold is not a phone number.
        expect(personalDataIn(text.replaceAll(state.cartId, '<cartId>')), text).toEqual([]);
      }),
    );
  });

  it('gives activities summaries without the personal data their inputs carry', () => {
    const inputs: Record<string, Record<string, unknown>> = {
      sendOtp: { cartId: 'c'.repeat(24), contact: EMAIL, storeName: 'Shop', locale: 'en' },
      chargePayment: { cartId: 'c'.repeat(24), cardToken: 'card_abcdefghijklmnop1234', amount: 3900, currency: 'EUR' },
      recordCartEvent: { cartId: 'c'.repeat(24), event: 'order_created', status: 'paid', payment: { brand: 'visa', last4: '1111' } },
      deliverWebhook: { eventId: 'evt_4LxxA5Lms07eEqhjBmPPQzuf', trigger: 'replay' },
    };
    for (const [activity, input] of Object.entries(inputs)) {
      const summary = activitySummary(activity, [input]);
      expect(personalDataIn(summary), `${activity}: ${summary}`).toEqual([]);
      expect(summary).not.toContain(PAN);
    }
    expect(activitySummary('chargePayment', [inputs.chargePayment])).toBe('charge €39.00');
    expect(activitySummary('chargePayment', [{ ...inputs.chargePayment, processing: { status: 'processing' } }])).toBe('ledger: processing; charge €39.00');
    expect(activitySummary('sendOtp', [{ contact: PHONE }])).not.toContain('6 12');
  });

  it('starts each session with a summary and details of the merchant, environment, amount, items and capture method', () => {
    const { staticSummary, staticDetails } = sessionMetadata({ merchantName: 'Acme Ltd', environment: 'sandbox', amount: 3900, currency: 'EUR', itemCount: 2 });
    expect(staticSummary).toBe('Acme Ltd (sandbox): €39.00, 2 items');
    expect(staticDetails).toBe('Merchant: Acme Ltd\nEnvironment: sandbox\nAmount: €39.00 (EUR)\nItems: 2\nCapture method: automatic');
    expect(sessionMetadata({ merchantName: 'Kaisha', environment: 'production', amount: 5000, currency: 'JPY', itemCount: 1 }).staticSummary).toBe(
      'Kaisha (production): ¥5,000, 1 item',
    );
  });
});
