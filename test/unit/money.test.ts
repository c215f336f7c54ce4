import currencyCodes from 'currency-codes';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cartTotal, formatAmount, minorUnits } from '../../core/money.js';

describe('minor units of a currency (ISO 4217)', () => {
  it.each([
    ['JPY', 0],
    ['ISK', 0],
    ['EUR', 2],
    ['USD', 2],
    ['KWD', 3],
    ['BHD', 3],
    ['CLF', 4],
  ])('%s has %i digits after the point', (currency, digits) => {
    expect(minorUnits(currency)).toBe(digits);
  });

  it('takes a code ISO 4217 does not know as two-decimal', () => {
    expect(minorUnits('ZZZ')).toBe(2);
  });
});

describe('an amount as the customer reads it', () => {
  it.each([
    [1999, 'EUR', 'en', '€19.99'],
    [5, 'EUR', 'en', '€0.05'],
    [1999, 'EUR', 'de', '19,99\u00a0€'],
    [123456789, 'USD', 'en', '$1,234,567.89'],
    [5000, 'JPY', 'en', '¥5,000'],
    [1234, 'KWD', 'en', 'KWD\u00a01.234'],
    [1000, 'KWD', 'en', 'KWD\u00a01.000'],
  ])('%i %s in %s is %s', (amount, currency, locale, shown) => {
    expect(formatAmount(amount, currency, locale)).toBe(shown);
  });

  it('is in English unless told', () => {
    expect(formatAmount(4498, 'EUR')).toBe(formatAmount(4498, 'EUR', 'en'));
  });

  it('shows every minor unit of every ISO 4217 currency, no more, none rounded away (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...currencyCodes.codes()), fc.integer({ min: 0, max: 10 ** 12 }), (currency, amount) => {
        const digits = minorUnits(currency);
        expect(formatAmount(amount, currency).replace(/\D/g, '')).toBe(String(amount).padStart(digits + 1, '0'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('a cart’s total', () => {
  it('is each price times its quantity, summed', () => {
    expect(
      cartTotal([
        { price: 1999, quantity: 2 },
        { price: 500, quantity: 1 },
      ]),
    ).toBe(4498);
    expect(cartTotal([{ price: 0, quantity: 3 }])).toBe(0);
  });

  it('is 0 for no items', () => {
    expect(cartTotal([])).toBe(0);
  });

  it('does not depend on the order of the items, and two carts together cost what each does (property)', () => {
    const items = fc.array(fc.record({ price: fc.integer({ min: 0, max: 10 ** 7 }), quantity: fc.integer({ min: 1, max: 100 }) }), { maxLength: 20 });
    fc.assert(
      fc.property(items, items, (a, b) => {
        expect(cartTotal([...a, ...b])).toBe(cartTotal(a) + cartTotal(b));
        expect(cartTotal([...a].reverse())).toBe(cartTotal(a));
      }),
    );
  });
});
