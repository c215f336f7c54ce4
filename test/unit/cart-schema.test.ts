import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validationError } from '../../application/errors.js';
import { createCartRequestSchema, currencySchema, countrySchema, itemSchema } from '../../core/checkout/cart-schema.js';
import { validCartArbitrary } from '../support/cart-arbitraries.js';
import { validCartRequest } from '../support/fixtures.js';

describe('create-cart schema', () => {
  it('accepts every generated valid cart and returns it unchanged (property, 1000 runs)', () => {
    fc.assert(
      fc.property(validCartArbitrary(randomUUID()), (request) => {
        const parsed = createCartRequestSchema.safeParse(request);
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
        expect(parsed.data).toEqual(request);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on arbitrary JSON, only reports issues (property, 1000 runs)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (json) => void createCartRequestSchema.safeParse(json)),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['Size : M', true],
    ['Time : 10:30', true],
    ['Gift wrap : Yes please', true],
    ['Size:M', false],
    ['Size :M', false],
    [' Size : M', false],
    ['Size : M ', false],
    ['Size :  ', false],
    [' : M', false],
    ['Si:ze : M', false],
  ])('variant option %j valid: %s', (option, valid) => {
    const item = { ...validCartRequest(randomUUID()).cartObject.cart.items[0]!, variantOptions: [option] };
    expect(itemSchema.safeParse(item).success).toBe(valid);
  });

  it.each([
    [5, true],
    [45, true],
    [1440, true],
    [4, false],
    [1441, false],
    [15.5, false],
    ['15', false],
    [null, false],
  ])('sessionMinutes %j valid: %s', (sessionMinutes, valid) => {
    const request = validCartRequest(randomUUID());
    const parsed = createCartRequestSchema.safeParse({ cartObject: { ...request.cartObject, cart: { ...request.cartObject.cart, sessionMinutes } } });
    expect(parsed.success).toBe(valid);
  });

  it('names sessionMinutes and the bound it missed, and leaves it absent when not sent (the server then applies 45)', () => {
    const request = validCartRequest(randomUUID());
    expect(createCartRequestSchema.parse(request).cartObject.cart).not.toHaveProperty('sessionMinutes');
    const tooLong = createCartRequestSchema.safeParse(
      { cartObject: { ...request.cartObject, cart: { ...request.cartObject.cart, sessionMinutes: 1441 } } },
      { reportInput: true },
    );
    expect(validationError(tooLong.error).errors).toEqual([{ path: 'cartObject.cart.sessionMinutes', message: 'must be at most 1440 (minutes, 24 hours)' }]);
  });

  it('takes currencies from the ISO 4217 list, without funds, metals or test codes', () => {
    for (const ok of ['EUR', 'USD', 'JPY', 'KWD', 'XOF', 'CHF']) expect(currencySchema.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['eur', 'EURO', 'ABC', 'XAU', 'XTS', 'XXX', 'CHE', 'USN', 'CLF']) expect(currencySchema.safeParse(bad).success, bad).toBe(false);
  });

  it('takes countries from the ISO 3166-1 list, alpha-2 or alpha-3, upper case', () => {
    for (const ok of ['FR', 'FRA', 'DE', 'USA', 'JP']) expect(countrySchema.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['fr', 'ZZ', 'ZZZ', 'F', 'FRAN', '250', 'UK']) expect(countrySchema.safeParse(bad).success, bad).toBe(false);
  });
});
