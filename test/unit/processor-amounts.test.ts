import Stripe from 'stripe';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertChargeable } from '../../application/chargeable-amount.js';
import { ApiError, ERROR_STATUS } from '../../application/errors.js';
import type { Card } from '../../core/checkout/cards.js';
import { PAYABLE_CURRENCIES } from '../../core/checkout/cart-schema.js';
import type { PaymentProcessor } from '../../core/checkout/payment-processor.js';
import { createSandboxPaymentProcessor, SANDBOX_CARDS, SANDBOX_TEST_CARD, sandboxRecord } from '../../core/checkout/payment-processors/sandbox.js';
import { createStripePaymentProcessor } from '../../core/checkout/payment-processors/stripe.js';
import { STRIPE_CURRENCIES } from '../../core/checkout/payment-processors/stripe-currencies.js';
import { fromProcessorAmount, processorCurrencies, toProcessorAmount } from '../../core/checkout/processor-amounts.js';
import { minorUnits } from '../../core/money.js';

const FIELDS = { currency: 'cartObject.cart.currency', amount: 'cartObject.cart.items' };
const STRIPE_CARD: Card = { pan: '4242424242424242', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030, cvv: '123' };
const SANDBOX_CARD: Card = { pan: SANDBOX_CARDS.approved, brand: 'visa', last4: '1111', ...SANDBOX_TEST_CARD };

/** The Stripe adapter on a fetch that approves everything and records the `amount` and `amount_to_capture` each request sent. */
function recordingStripe() {
  const amounts: Array<{ path: string; amount: string | null }> = [];
  const fetchFn = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const form = new URLSearchParams(typeof init?.body === 'string' ? init.body : '');
    amounts.push({ path: url.pathname, amount: form.get('amount') ?? form.get('amount_to_capture') });
    const body = url.pathname.startsWith('/v1/payment_methods')
      ? { id: 'pm_test', object: 'payment_method' }
      : url.pathname.startsWith('/v1/refunds')
        ? { id: 're_test', object: 'refund', status: 'succeeded' }
        : { id: 'pi_test', object: 'payment_intent', status: 'succeeded', latest_charge: null };
    return Promise.resolve(new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }));
  };
  const processor = createStripePaymentProcessor({
    secretKey: 'sk_test_unit',
    apiBase: 'https://api.stripe.com',
    httpClient: Stripe.createFetchHttpClient(fetchFn),
  });
  return { processor, lastAmount: () => Number(amounts.at(-1)!.amount) };
}

/**
 * The documented reading, by decimal text rather than the module's arithmetic: the amount in major
 * units, written out with the processor's digits. Undefined when those digits cannot hold it exactly.
 */
function expectedStripeAmount(currency: string, isoAmount: number): number | undefined {
  const units = STRIPE_CURRENCIES.get(currency);
  if (!units) return undefined;
  const isoDigits = minorUnits(currency);
  const digits = String(isoAmount).padStart(isoDigits + 1, '0');
  const [whole, fraction] = [digits.slice(0, digits.length - isoDigits), digits.slice(digits.length - isoDigits)];
  const kept = fraction.padEnd(units.exponent, '0');
  if (kept.length > units.exponent && /[^0]/.test(kept.slice(units.exponent))) return undefined;
  const amount = Number(`${whole}${kept.slice(0, units.exponent)}`);
  return amount % units.step === 0 && Number.isSafeInteger(amount) ? amount : undefined;
}

/** What create-cart (and capture, refund) answers: nothing, or its 422 with the field it names. */
function refusalOf(processor: 'stripe' | 'sandbox', currency: string, amount: number): { code: string; status: number; path: string } | undefined {
  try {
    assertChargeable(processorCurrencies(processor), currency, amount, FIELDS);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { code: error.code, status: ERROR_STATUS[error.code], path: error.errors[0]!.path };
  }
}

describe('Amounts in the processor’s unit (core/checkout/processor-amounts.ts)', () => {
  // Each row checked against https://docs.stripe.com/currencies (zero-decimal list, three-decimal rule, special cases).
  it.each([
    ['ISK', 5000, 500000, 'ISK is zero-decimal in ISO 4217; Stripe takes it as two-decimal ending in 00: 5,000 kr is 500000'],
    ['UGX', 5000, 500000, 'UGX: the special case (two-decimal, always 00) wins over the zero-decimal list'],
    ['HUF', 123456, 123456, 'HUF charges two-decimal amounts (zero-decimal only for payouts)'],
    ['TWD', 80045, 80045, 'TWD charges two-decimal amounts (zero-decimal only for payouts)'],
    ['MGA', 100000, 1000, 'MGA is two-decimal in ISO 4217 and zero-decimal at Stripe: 1,000.00 Ar is 1000'],
    ['JPY', 5000, 5000, 'JPY is zero-decimal on both sides'],
    ['KWD', 1000, 1000, 'KWD is three-decimal; an amount ending in 0 goes as it is'],
    ['EUR', 4498, 4498, 'two-decimal on both sides'],
  ])('%s %i goes to Stripe as %i (%s)', async (currency, isoAmount, stripeAmount) => {
    const { processor, lastAmount } = recordingStripe();
    expect(refusalOf('stripe', currency, isoAmount)).toBeUndefined();
    await processor.charge({ idempotencyKey: `named-${currency}`, amount: isoAmount, currency, card: STRIPE_CARD });
    expect(lastAmount()).toBe(stripeAmount);
    await processor.capture({ idempotencyKey: `named-${currency}:capture`, chargeId: 'pi_test', amount: isoAmount, currency });
    expect(lastAmount()).toBe(stripeAmount);
    await processor.refund({ idempotencyKey: `named-${currency}:refund`, chargeId: 'pi_test', amount: isoAmount, currency });
    expect(lastAmount()).toBe(stripeAmount);
  });

  it.each([
    ['KWD', 1005, 'AMOUNT_NOT_REPRESENTABLE', FIELDS.amount, 'a three-decimal amount must end in 0'],
    ['MGA', 100050, 'AMOUNT_NOT_REPRESENTABLE', FIELDS.amount, 'Stripe cannot charge a fraction of an ariary'],
    ['KPW', 1000, 'CURRENCY_NOT_SUPPORTED', FIELDS.currency, 'not a Stripe presentment currency'],
  ])('%s %i is refused with %s naming %s, in sandbox and with Stripe (%s)', async (currency, amount, code, path) => {
    for (const processor of ['stripe', 'sandbox'] as const) expect(refusalOf(processor, currency, amount)).toEqual({ code, status: 422, path });
    // The adapters never send it either: a charge that got past the API is our bug, not a wrong amount.
    await expect(recordingStripe().processor.charge({ idempotencyKey: `refused-${currency}`, amount, currency, card: STRIPE_CARD })).rejects.toThrow(code);
  });

  it.each([
    ['ISK', 500, 5, 'a dispute of 5 kr is 500 at Stripe'],
    ['MGA', 1000, 100000, 'a dispute of 1,000 Ar is 1000 at Stripe, 100000 to us'],
    ['KWD', 1230, 1230, 'three-decimal on both sides'],
    ['EUR', 4498, 4498, 'two-decimal on both sides'],
  ])('%s %i reported by Stripe is %i in ISO minor units (%s)', (currency, stripeAmount, isoAmount) => {
    expect(fromProcessorAmount(STRIPE_CURRENCIES, 'stripe', currency, stripeAmount)).toBe(isoAmount);
  });

  it('an amount Stripe reports comes back to the one we sent, for every currency it charges', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STRIPE_CURRENCIES.keys()), fc.integer({ min: 1, max: 10_000_000 }), (currency, amount) => {
        const sent = toProcessorAmount(STRIPE_CURRENCIES, currency, amount);
        fc.pre(sent.ok);
        expect(fromProcessorAmount(STRIPE_CURRENCIES, 'stripe', currency, sent.ok ? sent.amount : 0)).toBe(amount);
      }),
      { numRuns: 500 },
    );
  });

  it('an amount below the currency’s minor unit, or in a currency Stripe does not charge, is refused by name', () => {
    expect(() => fromProcessorAmount(STRIPE_CURRENCIES, 'stripe', 'ISK', 550)).toThrow('has digits below ISK');
    expect(() => fromProcessorAmount(STRIPE_CURRENCIES, 'stripe', 'KPW', 100)).toThrow('CURRENCY_NOT_SUPPORTED');
  });

  it('the refusal names the fix: the nearest amounts the processor can charge', () => {
    expect(() => assertChargeable(processorCurrencies('stripe'), 'KWD', 1005, FIELDS)).toThrow(
      /multiples of 10\. Use 1000 or 1010 \(KWD\s?1\.000 or KWD\s?1\.010\)/,
    );
  });

  it('every currency the cart schema accepts × every adapter: the adapter sends exactly the total in its unit, or create-cart refuses with a 422 naming the field', async () => {
    // One client per adapter for the whole property: building a Stripe client per run was most of its time.
    const stripe = recordingStripe();
    const sandbox = createSandboxPaymentProcessor('sandbox');
    const adapters: Record<'stripe' | 'sandbox', { processor: PaymentProcessor; sent: (key: string) => number | undefined }> = {
      stripe: { processor: stripe.processor, sent: () => stripe.lastAmount() },
      sandbox: { processor: sandbox, sent: (key) => sandboxRecord(key)?.requested?.amount },
    };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...PAYABLE_CURRENCIES),
        fc.constantFrom('stripe' as const, 'sandbox' as const),
        fc.oneof(
          fc.integer({ min: 1, max: 1_000_000 }),
          fc.integer({ min: 1, max: 99_999_999_999 }).map((n) => n * 10),
        ),
        async (currency, name, amount) => {
          const refusal = refusalOf(name, currency, amount);
          const stripeAmount = expectedStripeAmount(currency, amount);
          if (!STRIPE_CURRENCIES.has(currency)) {
            expect(refusal).toEqual({ code: 'CURRENCY_NOT_SUPPORTED', status: 422, path: FIELDS.currency });
            return;
          }
          // The sandbox applies the production processor's rules: it refuses exactly what Stripe refuses.
          if (stripeAmount === undefined) {
            expect(refusal).toEqual({ code: 'AMOUNT_NOT_REPRESENTABLE', status: 422, path: FIELDS.amount });
            return;
          }
          expect(refusal).toBeUndefined();
          const { processor, sent } = adapters[name];
          const key = `property-${run++}`;
          await processor.charge({ idempotencyKey: key, amount, currency, card: name === 'stripe' ? STRIPE_CARD : SANDBOX_CARD });
          // The sandbox's unit is ISO 4217's minor unit; Stripe's is its own.
          expect(sent(key)).toBe(name === 'stripe' ? stripeAmount : amount);
          const converted = toProcessorAmount(processorCurrencies(name), currency, amount);
          expect(converted).toEqual({ ok: true, amount: name === 'stripe' ? stripeAmount : amount });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a capture or refund of part of the total is held to the same rule', async () => {
    const { processor, lastAmount } = recordingStripe();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...STRIPE_CURRENCIES.keys()), fc.integer({ min: 1, max: 10_000_000 }), async (currency, amount) => {
        const expected = expectedStripeAmount(currency, amount);
        const capture = processor.capture({ idempotencyKey: 'k:capture', chargeId: 'pi_test', amount, currency });
        const refund = () => processor.refund({ idempotencyKey: 'k:refund', chargeId: 'pi_test', amount, currency });
        if (expected === undefined) {
          expect(refusalOf('stripe', currency, amount)?.code).toBe('AMOUNT_NOT_REPRESENTABLE');
          await expect(capture).rejects.toThrow('AMOUNT_NOT_REPRESENTABLE');
          await expect(refund()).rejects.toThrow('AMOUNT_NOT_REPRESENTABLE');
          return;
        }
        await capture;
        expect(lastAmount()).toBe(expected);
        await refund();
        expect(lastAmount()).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
