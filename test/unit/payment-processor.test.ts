import { describe, expect, it } from 'vitest';
import { checkCard, type Card } from '../../core/checkout/cards.js';
import { createSandboxPaymentProcessor, ProcessorUnavailableError, SANDBOX_CARDS } from '../../core/checkout/payment-processor.js';

const card = (number: string, expiry = '12/30', cvv = '123'): Card => {
  const checked = checkCard({ number, expiry, cvv }, new Date('2026-01-01T00:00:00Z'));
  if (!checked.ok) throw new Error(`bad test card ${number}`);
  return checked.card;
};
const authorize = (c: Card, idempotencyKey = 'cart-1') =>
  createSandboxPaymentProcessor('sandbox').authorize({ idempotencyKey, amount: 4498, currency: 'EUR', card: c });

describe('sandbox payment processor', () => {
  it('approves the test card with its expiry and CVV, with one authorization id per idempotency key', async () => {
    const first = await authorize(card('4111 1111 1111 1111'));
    expect(first).toMatchObject({ outcome: 'approved', authorizationId: expect.stringMatching(/^auth_sbx_/) });
    expect(await authorize(card(SANDBOX_CARDS.approved))).toEqual(first);
    expect(await authorize(card(SANDBOX_CARDS.approved), 'cart-2')).not.toEqual(first);
  });

  it.each([
    [SANDBOX_CARDS.declined, '12/30', '123', 'card_declined'],
    [SANDBOX_CARDS.insufficientFunds, '12/30', '123', 'insufficient_funds'],
    ['5555555555554444', '12/30', '123', 'not_a_test_card'],
    ['4242424242424242', '12/30', '123', 'not_a_test_card'],
    [SANDBOX_CARDS.approved, '12/30', '124', 'card_declined'],
    [SANDBOX_CARDS.approved, '01/30', '123', 'card_declined'],
  ])('declines %s (%s, %s) with %s', async (number, expiry, cvv, declineCode) => {
    expect(await authorize(card(number, expiry, cvv))).toEqual({ outcome: 'declined', declineCode });
  });

  it('reports the processor-error card as unavailable (retryable), not as a decline', async () => {
    await expect(authorize(card(SANDBOX_CARDS.processorError))).rejects.toBeInstanceOf(ProcessorUnavailableError);
  });

  it('refuses to exist in production', () => {
    expect(() => createSandboxPaymentProcessor('production')).toThrow(/never runs in production/);
  });
});
