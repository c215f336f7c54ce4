import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkCard, luhnValid, type Card } from '../../core/checkout/cards.js';
import { ProcessorUnavailableError, type PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { createSandboxPaymentProcessor, SANDBOX_CARDS, SANDBOX_REFUND_DECLINED_AMOUNT, sandboxRecord } from '../../core/checkout/payment-processors/sandbox.js';

const card = (number: string, expiry = '12/30', cvv = '123'): Card => {
  const checked = checkCard({ number, expiry, cvv }, new Date('2026-01-01T00:00:00Z'));
  if (!checked.ok) throw new Error(`bad test card ${number}`);
  return checked.card;
};
/** The sandbox remembers per key for the whole process: each test uses keys of its own. */
const newKey = () => `cart-${randomUUID()}`;
const sandbox = createSandboxPaymentProcessor('sandbox');
const charge = (c: Card, idempotencyKey = newKey(), processor: PaymentProcessor = sandbox) =>
  processor.charge({ idempotencyKey, amount: 4498, currency: 'EUR', card: c });
const unavailable = (promise: Promise<unknown>) => expect(promise).rejects.toBeInstanceOf(ProcessorUnavailableError);

describe('sandbox payment processor', () => {
  it('every sandbox card number passes the Luhn check', () => {
    for (const number of Object.values(SANDBOX_CARDS)) expect(luhnValid(number), number).toBe(true);
  });

  it('approves the test card with its expiry and CVV, with one charge id per idempotency key', async () => {
    const key = newKey();
    const first = await charge(card('4111 1111 1111 1111'), key);
    expect(first).toMatchObject({ outcome: 'approved', chargeId: expect.stringMatching(/^ch_sbx_/) });
    expect(await charge(card(SANDBOX_CARDS.approved), key)).toEqual(first);
    expect(await charge(card(SANDBOX_CARDS.approved))).not.toEqual(first);
    expect(sandboxRecord(key)).toMatchObject({ requests: 2, charges: 1 });
    expect(await sandbox.lookup({ idempotencyKey: key })).toEqual({ found: true, result: first });
  });

  it.each([
    [SANDBOX_CARDS.declined, '12/30', '123', 'card_declined'],
    [SANDBOX_CARDS.insufficientFunds, '12/30', '123', 'insufficient_funds'],
    ['5555555555554444', '12/30', '123', 'not_a_test_card'],
    ['4242424242424242', '12/30', '123', 'not_a_test_card'],
    [SANDBOX_CARDS.approved, '12/30', '124', 'card_declined'],
    [SANDBOX_CARDS.approved, '01/30', '123', 'card_declined'],
  ])('declines %s (%s, %s) with %s, and lookup finds the decline', async (number, expiry, cvv, declineCode) => {
    const key = newKey();
    expect(await charge(card(number, expiry, cvv), key)).toEqual({ outcome: 'declined', declineCode, threeDSecure: 'not_required' });
    expect(await sandbox.lookup({ idempotencyKey: key })).toEqual({ found: true, result: { outcome: 'declined', declineCode, threeDSecure: 'not_required' } });
    expect(sandboxRecord(key)?.charges).toBe(0);
  });

  it('processor error: never answers, and lookup says not found (unavailable is not a decline)', async () => {
    const key = newKey();
    for (let i = 0; i < 4; i++) await unavailable(charge(card(SANDBOX_CARDS.processorError), key));
    expect(await sandbox.lookup({ idempotencyKey: key })).toEqual({ found: false });
    expect(sandboxRecord(key)).toMatchObject({ requests: 4, charges: 0 });
  });

  it('answer lost once: the first request charges but does not answer; lookup and a retry find that one charge', async () => {
    const key = newKey();
    await unavailable(charge(card(SANDBOX_CARDS.answerLostOnce), key));
    const found = await sandbox.lookup({ idempotencyKey: key });
    expect(found).toEqual({ found: true, result: { outcome: 'approved', chargeId: expect.stringMatching(/^ch_sbx_/), threeDSecure: 'not_required' } });
    expect(await charge(card(SANDBOX_CARDS.answerLostOnce), key)).toEqual(found.found && found.result);
    expect(sandboxRecord(key)).toMatchObject({ requests: 2, charges: 1 });
  });

  it('times out twice: nothing reaches the acquirer until the third request, which is approved', async () => {
    const key = newKey();
    await unavailable(charge(card(SANDBOX_CARDS.timesOutTwice), key));
    await unavailable(charge(card(SANDBOX_CARDS.timesOutTwice), key));
    expect(await sandbox.lookup({ idempotencyKey: key })).toEqual({ found: false });
    expect(await charge(card(SANDBOX_CARDS.timesOutTwice), key)).toMatchObject({ outcome: 'approved' });
    expect(sandboxRecord(key)).toMatchObject({ requests: 3, charges: 1 });
  });

  it('never answers: the approval lands late; after a void by key it lands voided', async () => {
    const processor = createSandboxPaymentProcessor('sandbox', { lateApprovalMs: 50 });
    const found = newKey();
    await unavailable(charge(card(SANDBOX_CARDS.neverAnswers), found, processor));
    await unavailable(charge(card(SANDBOX_CARDS.neverAnswers), found, processor));
    expect(await processor.lookup({ idempotencyKey: found })).toEqual({ found: false });
    await new Promise((r) => setTimeout(r, 150));
    expect(await processor.lookup({ idempotencyKey: found })).toMatchObject({ found: true, result: { outcome: 'approved' } });
    expect(sandboxRecord(found)).toMatchObject({ charges: 1, voided: false });

    const gaveUp = newKey();
    await unavailable(charge(card(SANDBOX_CARDS.neverAnswers), gaveUp, processor));
    await processor.void({ idempotencyKey: gaveUp });
    await new Promise((r) => setTimeout(r, 150));
    expect(sandboxRecord(gaveUp)).toMatchObject({ charges: 1, voided: true });
  });

  it('refunds an approved charge once per refund key', async () => {
    const result = await charge(card(SANDBOX_CARDS.approved));
    if (result.outcome !== 'approved') throw new Error('expected an approval');
    const refund = await sandbox.refund({ idempotencyKey: 'refund-1', chargeId: result.chargeId, amount: 1000, currency: 'EUR' });
    expect(refund).toEqual({ outcome: 'refunded', refundId: expect.stringMatching(/^re_sbx_/) as unknown });
    expect(await sandbox.refund({ idempotencyKey: 'refund-1', chargeId: result.chargeId, amount: 1000, currency: 'EUR' })).toEqual(refund);
    expect(await sandbox.refund({ idempotencyKey: 'refund-2', chargeId: 'ch_unknown', amount: 1, currency: 'EUR' })).toEqual({
      outcome: 'declined',
      declineCode: 'charge_not_found',
    });
  });

  it(`declines a refund of exactly ${SANDBOX_REFUND_DECLINED_AMOUNT}, and answers its retry the same`, async () => {
    const result = await charge(card(SANDBOX_CARDS.approved));
    if (result.outcome !== 'approved') throw new Error('expected an approval');
    const declined = { outcome: 'declined', declineCode: 'refund_declined' };
    expect(await sandbox.refund({ idempotencyKey: 'refund-3', chargeId: result.chargeId, amount: SANDBOX_REFUND_DECLINED_AMOUNT, currency: 'EUR' })).toEqual(
      declined,
    );
    expect(await sandbox.refund({ idempotencyKey: 'refund-3', chargeId: result.chargeId, amount: SANDBOX_REFUND_DECLINED_AMOUNT, currency: 'EUR' })).toEqual(
      declined,
    );
    expect(
      await sandbox.refund({ idempotencyKey: 'refund-4', chargeId: result.chargeId, amount: SANDBOX_REFUND_DECLINED_AMOUNT + 1, currency: 'EUR' }),
    ).toMatchObject({
      outcome: 'refunded',
    });
  });

  it('refuses to exist in production', () => {
    expect(() => createSandboxPaymentProcessor('production')).toThrow(/never runs in production/);
  });
});
