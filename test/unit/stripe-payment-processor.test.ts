import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { Card } from '../../core/checkout/cards.js';
import { ProcessorUnavailableError, type PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { createStripePaymentProcessor, KEY_METADATA } from '../../core/checkout/payment-processors/stripe.js';

/** Stripe's answers as its API documents them (test/fixtures/stripe/): which request they answer, the HTTP status, the body. */
const answer = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/stripe/${name}.json`, import.meta.url), 'utf8')) as { status: number; body: unknown };

const CARD: Card = { pan: '4242424242424242', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, cvv: '123' };
const KEY = 'q3Vh0Xc2b1TzM9r8L5kA7wYe';

interface Sent {
  method: string;
  path: string;
  idempotencyKey: string | null;
  form: URLSearchParams;
}

/** The Stripe client on a fetch that answers from the fixtures by path, recording what was sent. */
function processorAnswering(answers: Record<string, { status: number; body: unknown } | Error>) {
  const sent: Sent[] = [];
  const fetchFn = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      idempotencyKey: headers.get('idempotency-key'),
      form: new URLSearchParams(typeof init?.body === 'string' ? init.body : url.search),
    });
    const route = Object.keys(answers).find((prefix) => url.pathname.startsWith(prefix));
    const reply = route && answers[route];
    if (!reply) return Promise.reject(new Error(`no answer recorded for ${url.pathname}`));
    if (reply instanceof Error) return Promise.reject(reply);
    return Promise.resolve(
      new Response(JSON.stringify(reply.body), { status: reply.status, headers: { 'content-type': 'application/json', 'request-id': 'req_test' } }),
    );
  };
  const processor: PaymentProcessor = createStripePaymentProcessor({
    secretKey: 'sk_test_unit',
    apiBase: 'https://api.stripe.com',
    httpClient: Stripe.createFetchHttpClient(fetchFn),
  });
  return { processor, sent };
}

const charge = (processor: PaymentProcessor) => processor.charge({ idempotencyKey: KEY, amount: 4498, currency: 'EUR', card: CARD });

describe('Stripe payment processor: what its answers mean', () => {
  it('charges with a PaymentMethod then a confirmed, automatically captured PaymentIntent, each POST under an idempotency key', async () => {
    const { processor, sent } = processorAnswering({
      '/v1/payment_methods': answer('payment-method'),
      '/v1/payment_intents': answer('payment-intent-succeeded'),
    });
    expect(await charge(processor)).toEqual({ outcome: 'approved', chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg' });
    expect(sent.map((s) => [s.method, s.path, s.idempotencyKey])).toEqual([
      ['POST', '/v1/payment_methods', `${KEY}:payment-method`],
      ['POST', '/v1/payment_intents', KEY],
    ]);
    expect(Object.fromEntries(sent[1]!.form)).toMatchObject({
      amount: '4498',
      currency: 'eur',
      confirm: 'true',
      capture_method: 'automatic',
      error_on_requires_action: 'true',
      payment_method: 'pm_1QxGx1LkdIwHu7ixPqRsTuVw',
      [`metadata[${KEY_METADATA}]`]: KEY,
    });
    // The card number goes to the PaymentMethod alone, never into the PaymentIntent or its metadata.
    expect(sent[0]!.form.get('card[number]')).toBe(CARD.pan);
    expect(sent[1]!.form.toString()).not.toContain(CARD.pan);
  });

  it.each([
    ['generic_decline', 'card_declined'],
    ['insufficient_funds', 'insufficient_funds'],
    // Stripe asks not to tell a customer that their card is reported lost or stolen.
    ['lost_card', 'card_declined'],
    ['stolen_card', 'card_declined'],
    ['expired_card', 'expired_card'],
    ['incorrect_cvc', 'incorrect_cvc'],
    ['incorrect_number', 'incorrect_number'],
    ['processing_error', 'processing_error'],
    ['authentication_required', 'authentication_required'],
  ])('maps a decline for %s to %s', async (reason, declineCode) => {
    const { processor } = processorAnswering({ '/v1/payment_methods': answer('payment-method'), '/v1/payment_intents': answer(`declined-${reason}`) });
    expect(await charge(processor)).toEqual({ outcome: 'declined', declineCode });
  });

  it('takes a PaymentIntent that requires action (3-D Secure) as a decline the merchant can name: the page cannot show the challenge', async () => {
    const { processor } = processorAnswering({
      '/v1/payment_methods': answer('payment-method'),
      '/v1/payment_intents': answer('payment-intent-requires-action'),
    });
    expect(await charge(processor)).toEqual({ outcome: 'declined', declineCode: 'authentication_required' });
  });

  describe('3-D Secure (recorded answers: requires_action, then succeeded or requires_payment_method)', () => {
    const RETURN_URL = 'https://checkout.example.com/3ds/return?token=signed';

    it('with a return URL, a challenge is a payment waiting at the bank: the redirect, never a decline', async () => {
      const { processor, sent } = processorAnswering({
        '/v1/payment_methods': answer('payment-method'),
        '/v1/payment_intents': answer('payment-intent-requires-action-redirect'),
      });
      const result = await processor.charge({ idempotencyKey: KEY, amount: 4498, currency: 'EUR', card: CARD, returnUrl: RETURN_URL });
      expect(result).toEqual({
        outcome: 'requires_authentication',
        chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg',
        redirectUrl: expect.stringMatching(/^https:\/\/hooks\.stripe\.com\/3d_secure_2\/hosted\?/),
      });
      const form = Object.fromEntries(sent[1]!.form);
      expect(form).toMatchObject({ return_url: RETURN_URL, 'expand[0]': 'latest_charge', confirm: 'true' });
      expect(form).not.toHaveProperty('error_on_requires_action');
    });

    it('after the return, retrieves the PaymentIntent by id: succeeded after a challenge is approved and authenticated', async () => {
      const { processor, sent } = processorAnswering({ '/v1/payment_intents/pi_': answer('payment-intent-authenticated') });
      expect(await processor.authenticationResult!({ idempotencyKey: KEY, chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg' })).toEqual({
        outcome: 'approved',
        chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg',
        threeDSecure: 'authenticated',
      });
      expect([sent[0]!.method, sent[0]!.path, sent[0]!.form.get('expand[0]')]).toEqual([
        'GET',
        '/v1/payment_intents/pi_3QxGx2LkdIwHu7ix0aBcDeFg',
        'latest_charge',
      ]);
    });

    it('after the return, requires_payment_method with an authentication failure is a failed challenge', async () => {
      const { processor } = processorAnswering({ '/v1/payment_intents/pi_': answer('payment-intent-authentication-failed') });
      expect(await processor.authenticationResult!({ idempotencyKey: KEY, chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg' })).toEqual({
        outcome: 'declined',
        declineCode: 'authentication_failed',
        threeDSecure: 'failed',
      });
    });

    it('after the return, a PaymentIntent still requiring action is still waiting at the bank', async () => {
      const { processor } = processorAnswering({ '/v1/payment_intents/pi_': answer('payment-intent-requires-action-redirect') });
      expect(await processor.authenticationResult!({ idempotencyKey: KEY, chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg' })).toMatchObject({
        outcome: 'requires_authentication',
      });
    });

    it.each([
      [{ authentication_flow: 'challenge', result: 'authenticated' }, 'authenticated'],
      [{ authentication_flow: 'frictionless', result: 'authenticated' }, 'frictionless'],
      [{ authentication_flow: null, result: 'attempt_acknowledged' }, 'frictionless'],
      [{ authentication_flow: 'challenge', result: 'failed' }, 'failed'],
      [{ authentication_flow: null, result: 'exempted' }, 'not_required'],
      [null, 'not_required'],
    ])('reads the charge’s three_d_secure %j as %s', async (threeDSecure, expected) => {
      const authenticated = answer('payment-intent-authenticated');
      const body = structuredClone(authenticated.body) as { latest_charge: { payment_method_details: { card: Record<string, unknown> } } };
      body.latest_charge.payment_method_details.card.three_d_secure = threeDSecure;
      const { processor } = processorAnswering({ '/v1/payment_intents/pi_': { status: 200, body } });
      expect(await processor.authenticationResult!({ idempotencyKey: KEY, chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg' })).toMatchObject({
        outcome: 'approved',
        threeDSecure: expected,
      });
    });
  });

  it.each(['payment-intent-processing', 'payment-intent-unknown-status', 'api-error'])(
    'takes %s as no answer yet: ProcessorUnavailableError, never a decline',
    async (fixture) => {
      const { processor } = processorAnswering({ '/v1/payment_methods': answer('payment-method'), '/v1/payment_intents': answer(fixture) });
      await expect(charge(processor)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    },
  );

  it('takes a network failure as no answer, and says so without the request it sent', async () => {
    const { processor } = processorAnswering({ '/v1/payment_methods': new TypeError('fetch failed: ECONNRESET') });
    const failure = await charge(processor).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProcessorUnavailableError);
    expect(String((failure as Error).message)).not.toContain(CARD.pan);
  });

  it('takes a refused key as our mistake, not an outage nor a decline', async () => {
    const { processor } = processorAnswering({
      '/v1/payment_methods': { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****unit' } } },
    });
    const failure = await charge(processor).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ProcessorUnavailableError);
  });

  it('looks up by the key in metadata, and ignores an intent that answers the search without carrying that key', async () => {
    const succeeded = answer('payment-intent-succeeded').body as Record<string, unknown>;
    const other = { ...succeeded, id: 'pi_other', metadata: { [KEY_METADATA]: 'someone-else' } };
    const { processor, sent } = processorAnswering({
      '/v1/payment_intents/search': { status: 200, body: { object: 'search_result', data: [other, succeeded], has_more: false } },
    });
    expect(await processor.lookup({ idempotencyKey: KEY })).toEqual({ found: true, result: { outcome: 'approved', chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg' } });
    expect(sent[0]!.form.get('query')).toBe(`metadata['${KEY_METADATA}']:'${KEY}'`);

    const { processor: onlyOthers } = processorAnswering({
      '/v1/payment_intents/search': { status: 200, body: { object: 'search_result', data: [other], has_more: false } },
    });
    expect(await onlyOthers.lookup({ idempotencyKey: KEY })).toEqual({ found: false });
  });

  it('voids a captured payment by refunding it, and one still awaiting its card by cancelling it, each under a key of its own', async () => {
    const captured = processorAnswering({
      '/v1/payment_intents/pi_': answer('payment-intent-succeeded'),
      '/v1/refunds': { status: 200, body: { id: 're_1', object: 'refund' } },
    });
    await captured.processor.void({ idempotencyKey: KEY, chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg' });
    expect(captured.sent.map((s) => [s.method, s.path, s.idempotencyKey])).toEqual([
      ['GET', '/v1/payment_intents/pi_3QxGx2LkdIwHu7ix0aBcDeFg', null],
      ['POST', '/v1/refunds', `${KEY}:void-refund`],
    ]);

    const pending = answer('payment-intent-requires-action').body as Record<string, unknown>;
    const awaiting = processorAnswering({
      '/v1/payment_intents/search': { status: 200, body: { object: 'search_result', data: [pending], has_more: false } },
      '/v1/payment_intents/pi_3QxGx2LkdIwHu7ix0aBcDeFg/cancel': { status: 200, body: { ...pending, status: 'canceled' } },
    });
    await awaiting.processor.void({ idempotencyKey: KEY });
    expect(awaiting.sent.map((s) => [s.method, s.path, s.idempotencyKey])).toEqual([
      ['GET', '/v1/payment_intents/search', null],
      ['POST', '/v1/payment_intents/pi_3QxGx2LkdIwHu7ix0aBcDeFg/cancel', `${KEY}:void`],
    ]);
  });

  it('refunds part of a charge under the refund key', async () => {
    const { processor, sent } = processorAnswering({ '/v1/refunds': { status: 200, body: { id: 're_partial', object: 'refund', amount: 1000 } } });
    expect(await processor.refund({ idempotencyKey: 'refund-1', chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg', amount: 1000, currency: 'EUR' })).toEqual({
      outcome: 'refunded',
      refundId: 're_partial',
    });
    expect([sent[0]!.idempotencyKey, Object.fromEntries(sent[0]!.form)]).toEqual([
      'refund-1',
      { payment_intent: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg', amount: '1000' },
    ]);
  });

  it.each([
    ['resource_missing', 404, 'charge_not_found'],
    ['charge_already_refunded', 400, 'refund_declined'],
    ['amount_too_large', 400, 'refund_declined'],
  ])('takes a refund Stripe refuses with %s as a refusal (%s), which releases the amount', async (code, status, declineCode) => {
    const { processor } = processorAnswering({
      '/v1/refunds': { status, body: { error: { type: 'invalid_request_error', code, message: `refused: ${code}` } } },
    });
    expect(await processor.refund({ idempotencyKey: 'refund-2', chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg', amount: 1000, currency: 'EUR' })).toEqual({
      outcome: 'declined',
      declineCode,
    });
  });

  it('takes a refund Stripe fails to answer as unknown, so it is asked again under the same key', async () => {
    const { processor } = processorAnswering({ '/v1/refunds': { status: 500, body: { error: { type: 'api_error', message: 'try again' } } } });
    await expect(
      processor.refund({ idempotencyKey: 'refund-3', chargeId: 'pi_3QxGx2LkdIwHu7ix0aBcDeFg', amount: 1000, currency: 'EUR' }),
    ).rejects.toBeInstanceOf(ProcessorUnavailableError);
  });
});

describe('Stripe payment processor: saved cards, on Stripe’s answers for a saved card that needs 3-D Secure', () => {
  const PM = 'pm_1QxGx1LkdIwHu7ixPqRsTuVw';
  const CHALLENGED: Card = { pan: '4000002760003184', brand: 'visa', last4: '3184', expMonth: 12, expYear: 2030, cvv: '123' };
  const RETURN_URL = 'https://checkout.example.com/3ds/return?token=x';

  it('saves the card: a Customer, the PaymentMethod, attached to it, each under a key derived from the payment’s', async () => {
    const { processor, sent } = processorAnswering({
      '/v1/customers': answer('customer'),
      [`/v1/payment_methods/${PM}/attach`]: answer('payment-method-attached'),
      '/v1/payment_methods': answer('payment-method'),
    });
    expect(await processor.saveCard!({ idempotencyKey: KEY, card: CHALLENGED })).toEqual({
      outcome: 'saved',
      reference: { customerRef: 'cus_RqBv2mT8xLkD3a', paymentMethodRef: PM },
      brand: 'visa',
      last4: '3184',
      expMonth: 12,
      expYear: 2030,
    });
    expect(sent.map((s) => [s.method, s.path, s.idempotencyKey])).toEqual([
      ['POST', '/v1/customers', `${KEY}:customer`],
      ['POST', '/v1/payment_methods', `${KEY}:payment-method`],
      ['POST', `/v1/payment_methods/${PM}/attach`, `${KEY}:attach`],
    ]);
    expect(sent[2]!.form.get('customer')).toBe('cus_RqBv2mT8xLkD3a');
  });

  it('adds a card to the contact’s existing Customer instead of making another', async () => {
    const { processor, sent } = processorAnswering({
      [`/v1/payment_methods/${PM}/attach`]: answer('payment-method-attached'),
      '/v1/payment_methods': answer('payment-method'),
    });
    await processor.saveCard!({ idempotencyKey: KEY, card: CHALLENGED, customerRef: 'cus_RqBv2mT8xLkD3a' });
    expect(sent.map((s) => s.path)).toEqual(['/v1/payment_methods', `/v1/payment_methods/${PM}/attach`]);
  });

  it('charges the saved card with its Customer and PaymentMethod, no card data: a challenge is a payment waiting at the bank', async () => {
    const { processor, sent } = processorAnswering({ '/v1/payment_intents': answer('saved-card-requires-action') });
    const result = await processor.chargeSaved!({
      idempotencyKey: KEY,
      amount: 4498,
      currency: 'EUR',
      saved: { customerRef: 'cus_RqBv2mT8xLkD3a', paymentMethodRef: PM },
      returnUrl: RETURN_URL,
    });
    expect(result).toEqual({
      outcome: 'requires_authentication',
      chargeId: 'pi_3QxHa9LkdIwHu7ix1bCdEfGh',
      redirectUrl: expect.stringMatching(/^https:\/\/hooks\.stripe\.com\/3d_secure_2\/hosted\?/) as string,
    });
    const form = Object.fromEntries(sent[0]!.form);
    expect(form).toMatchObject({ customer: 'cus_RqBv2mT8xLkD3a', payment_method: PM, confirm: 'true', return_url: RETURN_URL });
    expect(Object.keys(form).filter((k) => /card|cvc|number|setup_future_usage/.test(k))).toEqual([]);
    expect(sent[0]!.idempotencyKey).toBe(KEY);
  });

  it('keeps a card saved for this payment with setup_future_usage on_session', async () => {
    const { processor, sent } = processorAnswering({ '/v1/payment_intents': answer('saved-card-requires-action') });
    await processor.chargeSaved!({ idempotencyKey: KEY, amount: 4498, currency: 'EUR', saved: { paymentMethodRef: PM }, keepForLater: true });
    expect(Object.fromEntries(sent[0]!.form)).toMatchObject({ payment_method: PM, setup_future_usage: 'on_session', error_on_requires_action: 'true' });
  });

  it('after the return, the saved card’s PaymentIntent succeeded with the challenge passed: approved and authenticated', async () => {
    const { processor } = processorAnswering({ '/v1/payment_intents/pi_': answer('saved-card-authenticated') });
    expect(await processor.authenticationResult!({ idempotencyKey: KEY, chargeId: 'pi_3QxHa9LkdIwHu7ix1bCdEfGh' })).toEqual({
      outcome: 'approved',
      chargeId: 'pi_3QxHa9LkdIwHu7ix1bCdEfGh',
      threeDSecure: 'authenticated',
    });
  });

  it('detaches the PaymentMethod; one Stripe no longer has is gone as asked', async () => {
    const detached = processorAnswering({ [`/v1/payment_methods/${PM}/detach`]: answer('payment-method-detached') });
    await detached.processor.detachCard!({ customerRef: 'cus_RqBv2mT8xLkD3a', paymentMethodRef: PM });
    expect(detached.sent.map((s) => [s.method, s.path])).toEqual([['POST', `/v1/payment_methods/${PM}/detach`]]);

    const missing = processorAnswering({
      [`/v1/payment_methods/${PM}/detach`]: {
        status: 404,
        body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such PaymentMethod' } },
      },
    });
    await expect(missing.processor.detachCard!({ paymentMethodRef: PM })).resolves.toBeUndefined();
  });

  it('a card the issuer refuses at attach is a decline, and nothing is charged', async () => {
    const { processor, sent } = processorAnswering({
      '/v1/customers': answer('customer'),
      [`/v1/payment_methods/${PM}/attach`]: answer('declined-generic_decline'),
      '/v1/payment_methods': answer('payment-method'),
    });
    expect(await processor.saveCard!({ idempotencyKey: KEY, card: CHALLENGED })).toEqual({ outcome: 'declined', declineCode: 'card_declined' });
    expect(sent.map((s) => s.path)).not.toContain('/v1/payment_intents');
  });
});
