import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardBrand, checkCard, cvvLength, luhnValid } from '../../core/checkout/cards.js';

const NOW = new Date('2026-03-15T12:00:00Z');
const valid = { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' };

/** Appends the Luhn check digit to a payload of digits. */
function withCheckDigit(payload: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(payload + d)) return payload + d;
  throw new Error('unreachable');
}

describe('luhnValid', () => {
  it('accepts the sandbox and well-known test numbers', () => {
    for (const pan of [
      '4111111111111111',
      '4000000000000002',
      '4000000000009995',
      '4000000000000119',
      '5555555555554444',
      '378282246310005',
      '6011111111111117',
    ]) {
      expect(luhnValid(pan), pan).toBe(true);
    }
  });

  it('refuses a number with any single digit changed', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{11,18}$/), fc.nat(), fc.integer({ min: 1, max: 9 }), (payload, at, delta) => {
        const pan = withCheckDigit(payload);
        const i = at % pan.length;
        const changed = pan.slice(0, i) + ((Number(pan[i]) + delta) % 10) + pan.slice(i + 1);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });

  it('refuses 4111 1111 1111 1112', () => {
    expect(luhnValid('4111111111111112')).toBe(false);
  });
});

describe('cardBrand and cvvLength', () => {
  it.each([
    ['4111111111111111', 'visa'],
    ['5105105105105100', 'mastercard'],
    ['2221000000000009', 'mastercard'],
    ['2720990000000007', 'mastercard'],
    ['2220990000000008', 'unknown'],
    ['2721000000000004', 'unknown'],
    ['378282246310005', 'amex'],
    ['341111111111111', 'amex'],
    ['6011111111111117', 'discover'],
    ['6500000000000002', 'discover'],
    ['3530111333300000', 'unknown'],
  ])('%s is %s', (pan, brand) => {
    expect(cardBrand(pan)).toBe(brand);
  });

  it('wants 4 digits for amex and 3 for the others', () => {
    expect(cvvLength('amex')).toBe(4);
    for (const brand of ['visa', 'mastercard', 'discover', 'unknown'] as const) expect(cvvLength(brand)).toBe(3);
  });
});

describe('checkCard', () => {
  it('accepts the sandbox card and keeps only what the vault needs', () => {
    const result = checkCard(valid, NOW);
    expect(result).toEqual({ ok: true, card: { pan: '4111111111111111', brand: 'visa', last4: '1111', expMonth: 12, expYear: 2030, cvv: '123' } });
  });

  it('accepts spaces and dashes in the number and spaces around the slash', () => {
    expect(checkCard({ ...valid, number: '4111-1111-1111-1111', expiry: ' 12 / 30 ' }, NOW).ok).toBe(true);
  });

  it('names the field of every mistake, all at once', () => {
    const result = checkCard({ number: '4111 1111 1111 1112', expiry: '13/30', cvv: '12' }, NOW);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.field)).toEqual(['number', 'expiry', 'cvv']);
  });

  it.each([['411111111111'], ['4111 1111 1111 1111 1111'], ['4111 1111 abcd 1111'], ['']])('refuses the number %j', (number) => {
    const result = checkCard({ ...valid, number }, NOW);
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual(['number']);
  });

  describe('expiry boundaries (now is 15 March 2026)', () => {
    it.each([
      ['03/26', true], // the card works until the end of its month
      ['02/26', false],
      ['12/25', false],
      ['04/26', true],
      ['01/27', true],
      ['00/27', false],
      ['13/27', false],
      ['1/27', false],
      ['0327', false],
      ['03/2027', false],
    ])('%s → %s', (expiry, ok) => {
      const result = checkCard({ ...valid, expiry }, NOW);
      expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual(ok ? [] : ['expiry']);
    });

    it('says an expired card has expired, and a malformed one how to write it', () => {
      const expired = checkCard({ ...valid, expiry: '02/26' }, NOW);
      const malformed = checkCard({ ...valid, expiry: '2/26' }, NOW);
      expect(!expired.ok && expired.errors[0]?.message).toMatch(/expired/);
      expect(!malformed.ok && malformed.errors[0]?.message).toMatch(/MM\/YY/);
    });

    it('rolls over at midnight UTC on the first of the month', () => {
      expect(checkCard({ ...valid, expiry: '03/26' }, new Date('2026-03-31T23:59:59Z')).ok).toBe(true);
      expect(checkCard({ ...valid, expiry: '03/26' }, new Date('2026-04-01T00:00:00Z')).ok).toBe(false);
    });
  });

  describe('CVV length by brand', () => {
    it.each([
      ['4111111111111111', '123', true],
      ['4111111111111111', '1234', false],
      ['4111111111111111', '12', false],
      ['4111111111111111', '12a', false],
      ['378282246310005', '1234', true],
      ['378282246310005', '123', false],
      ['5555555555554444', '999', true],
    ])('%s with %s → %s', (number, cvv, ok) => {
      const result = checkCard({ ...valid, number, cvv }, NOW);
      expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual(ok ? [] : ['cvv']);
    });
  });

  it('never puts the number or the CVV in an error message', () => {
    const result = checkCard({ number: '4111 1111 1111 1112', expiry: '01/20', cvv: '98' }, NOW);
    expect(JSON.stringify(result)).not.toMatch(/4111|1112|98"/);
  });
});
