import currencyCodes from 'currency-codes';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CurrencyList } from '../../core/checkout/accepted-currencies.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { useTestStack } from '../support/test-stack.js';

/**
 * `GET /v2/public/api/currencies` (api/currencies/) against create-cart on the real stack: for every
 * ISO 4217 code, and random totals, create-cart accepts a cart exactly when the endpoint lists its
 * currency and the total is a multiple of its `multipleOf`, and refuses it otherwise with the code the
 * endpoint's description promises, its message pointing to the endpoint.
 */
describe('the currencies endpoint agrees with create-cart', () => {
  const stack = useTestStack({ RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_PLATFORM: '1000000', RATE_LIMIT_PER_PLATFORM_CLIENT: '1000000' });
  let platformUuid: string;
  let listed: Map<string, CurrencyList['data'][number]>;
  beforeAll(async () => {
    platformUuid = (await stack.createMerchant()).platformUuid;
    const res = await fetch(`${stack.apiUrl}/v2/public/api/currencies`);
    expect(res.status).toBe(200);
    listed = new Map(((await res.json()) as CurrencyList).data.map((c) => [c.code, c]));
  });

  it('lists each currency with its ISO exponent and the sandbox’s and Stripe’s units', () => {
    expect(listed.get('KWD')).toEqual({
      code: 'KWD',
      exponent: 3,
      processors: [
        { processor: 'sandbox', exponent: 3, step: 10, multipleOf: 10 },
        { processor: 'stripe', exponent: 3, step: 10, multipleOf: 10 },
      ],
    });
    expect(listed.get('MGA')?.processors.find((p) => p.processor === 'stripe')).toEqual({ processor: 'stripe', exponent: 0, step: 1, multipleOf: 100 });
    expect(listed.get('JPY')).toMatchObject({ exponent: 0 });
    for (const refused of ['IRR', 'KPW', 'VES', 'XAU']) expect(listed.has(refused)).toBe(false);
  });

  it('create-cart accepts a cart exactly when the endpoint says it can be charged, for every ISO code', async () => {
    const codes = currencyCodes.codes();
    expect(codes.length).toBeGreaterThan(150);
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...codes), fc.integer({ min: 1, max: 10_000_000 }), async (currency, price) => {
        tried++;
        const request = validCartRequest(platformUuid);
        request.cartObject.cart.currency = currency;
        request.cartObject.cart.items = [{ ...request.cartObject.cart.items[0]!, price, quantity: 1 }];
        const res = await postCart(stack.apiUrl, request);
        const entry = listed.get(currency);
        const multipleOf = entry?.processors.find((p) => p.processor === 'sandbox')?.multipleOf;
        if (entry && price % multipleOf! === 0) {
          expect(res.status, `${price} ${currency}`).toBe(200);
          return;
        }
        expect([400, 422], `${price} ${currency}`).toContain(res.status);
        const body = (await res.json()) as { code: string; message: string };
        if (!entry) {
          // Not an ISO currency anyone pays in (400), or one the processor does not charge (422).
          expect(['VALIDATION_ERROR', 'CURRENCY_NOT_SUPPORTED']).toContain(body.code);
          if (body.code === 'CURRENCY_NOT_SUPPORTED') expect(body.message).toContain('GET /v2/public/api/currencies');
        } else {
          expect(body.code).toBe('AMOUNT_NOT_REPRESENTABLE');
          expect(body.message).toContain(`multiples of ${multipleOf}`);
          expect(body.message).toContain('GET /v2/public/api/currencies');
        }
      }),
      // Every ISO code once with a total every currency can charge (1,000,000 minor units), then 60 random
      // pairs: fast-check counts the examples within numRuns.
      { numRuns: codes.length + 60, examples: codes.map((code) => [code, 1_000_000] as [string, number]) },
    );
    expect(tried).toBeGreaterThanOrEqual(codes.length + 60);
  }, 300_000);
});
