import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Card } from '../../core/checkout/cards.js';
import { createStripePaymentProcessor } from '../../core/checkout/payment-processors/stripe.js';
import { startRecordingProxy } from '../support/stripe-mock.js';

const CARD: Card = { pan: '4242424242424242', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, cvv: '123' };

/**
 * The adapter against Stripe's own API mock (the run's stripe-mock, test/setup/global-setup.ts): every
 * request must pass its validation of Stripe's OpenAPI description. stripe-mock keeps no state and
 * answers each PaymentIntent with one fixture (made `succeeded` for this run), so these tests check
 * the requests and the round trips; what each answer means is unit-tested on Stripe's recorded answers.
 */
describe('Stripe payment processor against stripe-mock', () => {
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  beforeAll(async () => {
    proxy = await startRecordingProxy(inject('stripeApiBase'));
  });
  afterAll(() => proxy.close());
  const processor = () => createStripePaymentProcessor({ secretKey: 'sk_test_stripemock', apiBase: proxy.url });
  const sent = (from: number) => proxy.requests.slice(from).map((r) => [r.method, r.path.replace(/\?.*/, ''), r.idempotencyKey, r.status]);

  it('charges: the PaymentMethod and the confirmed PaymentIntent are accepted, each under an idempotency key', async () => {
    const from = proxy.requests.length;
    const result = await processor().charge({ idempotencyKey: 'cart-charge-1', amount: 4498, currency: 'EUR', card: CARD });
    expect(result).toMatchObject({ outcome: 'approved', chargeId: expect.stringMatching(/^pi_/) as string });
    expect(sent(from)).toEqual([
      ['POST', '/v1/payment_methods', 'cart-charge-1:payment-method', 200],
      ['POST', '/v1/payment_intents', 'cart-charge-1', 200],
    ]);
    const intent = new URLSearchParams(proxy.requests.at(-1)!.body);
    expect([intent.get('amount'), intent.get('currency'), intent.get('confirm'), intent.get('metadata[checkout_key]')]).toEqual([
      '4498',
      'eur',
      'true',
      'cart-charge-1',
    ]);
  });

  it('authorizes with capture_method manual, then captures part of the hold under the capture key', async () => {
    const from = proxy.requests.length;
    const held = await processor().charge({ idempotencyKey: 'cart-hold-1', amount: 4498, currency: 'EUR', card: CARD, captureMethod: 'manual' });
    expect(held).toMatchObject({ outcome: 'approved', chargeId: expect.stringMatching(/^pi_/) as string });
    expect(new URLSearchParams(proxy.requests.at(-1)!.body).get('capture_method')).toBe('manual');

    expect(await processor().capture({ idempotencyKey: 'cart-hold-1:capture', chargeId: 'pi_held', amount: 3000, currency: 'EUR' })).toEqual({
      outcome: 'captured',
    });
    expect(sent(from)).toEqual([
      ['POST', '/v1/payment_methods', 'cart-hold-1:payment-method', 200],
      ['POST', '/v1/payment_intents', 'cart-hold-1', 200],
      ['POST', '/v1/payment_intents/pi_held/capture', 'cart-hold-1:capture', 200],
    ]);
    expect(new URLSearchParams(proxy.requests.at(-1)!.body).get('amount_to_capture')).toBe('3000');
  });

  it('looks up by key with the search API, and takes the fixture (which carries no key of ours) as not found', async () => {
    const from = proxy.requests.length;
    expect(await processor().lookup({ idempotencyKey: 'cart-lookup-1' })).toEqual({ found: false });
    expect(sent(from)).toEqual([['GET', '/v1/payment_intents/search', undefined, 200]]);
    expect(new URL(proxy.requests.at(-1)!.path, 'http://x').searchParams.get('query')).toBe("metadata['checkout_key']:'cart-lookup-1'");
  });

  it('voids a captured charge by refunding it under the void key', async () => {
    const from = proxy.requests.length;
    await processor().void({ idempotencyKey: 'cart-void-1', chargeId: 'pi_captured' });
    expect(sent(from)).toEqual([
      ['GET', '/v1/payment_intents/pi_captured', undefined, 200],
      ['POST', '/v1/refunds', 'cart-void-1:void-refund', 200],
    ]);
  });

  it('refunds part of a charge under the refund key', async () => {
    const from = proxy.requests.length;
    const result = await processor().refund({ idempotencyKey: 'refund-1', chargeId: 'pi_captured', amount: 1000, currency: 'EUR' });
    expect(result).toMatchObject({ outcome: 'refunded', refundId: expect.stringMatching(/^re_/) as unknown });
    expect(sent(from)).toEqual([['POST', '/v1/refunds', 'refund-1', 200]]);
  });

  it('answers a dispute: the evidence submitted in Stripe’s fields, and an acceptance as the dispute closed', async () => {
    const from = proxy.requests.length;
    const status = await processor().submitDisputeEvidence!({
      disputeId: 'dp_evidence',
      evidence: { kind: 'product_delivered', explanation: 'Delivered and signed for.', shippingCarrier: 'La Poste', shippingTrackingNumber: '6A12345678901' },
    });
    expect(['needs_response', 'under_review', 'won', 'lost']).toContain(status);
    expect(await processor().acceptDispute!({ disputeId: 'dp_accepted' })).toMatch(/^(needs_response|under_review|won|lost)$/);
    expect(sent(from).map(([method, path, , code]) => [method, path, code])).toEqual([
      ['POST', '/v1/disputes/dp_evidence', 200],
      ['POST', '/v1/disputes/dp_accepted/close', 200],
    ]);
    const body = new URLSearchParams(proxy.requests[from]!.body);
    expect(body.get('submit')).toBe('true');
    expect(body.get('evidence[shipping_carrier]')).toBe('La Poste');
    expect(body.get('evidence[shipping_tracking_number]')).toBe('6A12345678901');
    expect(body.get('evidence[uncategorized_text]')).toBe('[product_delivered] Delivered and signed for.');
  });

  it('takes a Stripe that does not answer as unavailable, never as a decline', async () => {
    const closed = createStripePaymentProcessor({ secretKey: 'sk_test_stripemock', apiBase: 'http://127.0.0.1:9' });
    await expect(closed.charge({ idempotencyKey: 'cart-down-1', amount: 100, currency: 'EUR', card: CARD })).rejects.toMatchObject({
      name: 'ProcessorUnavailableError',
    });
  });

  it('saves a card: a Customer, the PaymentMethod attached to it, then a PaymentIntent with both and setup_future_usage on_session', async () => {
    const from = proxy.requests.length;
    const saved = await processor().saveCard!({ idempotencyKey: 'cart-save-1', card: CARD });
    expect(saved).toMatchObject({
      outcome: 'saved',
      reference: { customerRef: expect.stringMatching(/^cus_/) as string, paymentMethodRef: expect.stringMatching(/^pm_/) as string },
    });
    if (saved.outcome !== 'saved') throw new Error('stripe-mock refused the save');
    const result = await processor().chargeSaved!({ idempotencyKey: 'cart-save-1', amount: 4498, currency: 'EUR', saved: saved.reference, keepForLater: true });
    expect(result).toMatchObject({ outcome: 'approved' });
    expect(sent(from).map(([method, path, key, status]) => [method, String(path).replace(/pm_\w+/, 'pm_x'), key, status])).toEqual([
      ['POST', '/v1/customers', 'cart-save-1:customer', 200],
      ['POST', '/v1/payment_methods', 'cart-save-1:payment-method', 200],
      ['POST', '/v1/payment_methods/pm_x/attach', 'cart-save-1:attach', 200],
      ['POST', '/v1/payment_intents', 'cart-save-1', 200],
    ]);
    const intent = new URLSearchParams(proxy.requests.at(-1)!.body);
    expect([intent.get('customer'), intent.get('payment_method'), intent.get('setup_future_usage')]).toEqual([
      saved.reference.customerRef,
      saved.reference.paymentMethodRef,
      'on_session',
    ]);
  });

  it('charges a saved card by its Customer and PaymentMethod alone, then detaches it', async () => {
    const from = proxy.requests.length;
    const saved = { customerRef: 'cus_saved', paymentMethodRef: 'pm_saved' };
    expect(await processor().chargeSaved!({ idempotencyKey: 'cart-saved-2', amount: 1200, currency: 'EUR', saved })).toMatchObject({ outcome: 'approved' });
    const intent = new URLSearchParams(proxy.requests.at(-1)!.body);
    expect([intent.get('customer'), intent.get('payment_method'), intent.get('setup_future_usage')]).toEqual(['cus_saved', 'pm_saved', null]);
    expect([...intent.keys()].filter((k) => /card|cvc|number/.test(k))).toEqual([]);
    await processor().detachCard!(saved);
    expect(sent(from)).toEqual([
      ['POST', '/v1/payment_intents', 'cart-saved-2', 200],
      ['POST', '/v1/payment_methods/pm_saved/detach', 'pm_saved:detach', 200],
    ]);
  });
});
