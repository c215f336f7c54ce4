import { describe, expect, it } from 'vitest';
import { parseRefundAmount } from '../../web/dashboard/refund-amount.js';

describe('a refund amount typed in the dashboard', () => {
  it('reads the currency, with a point or a comma, into minor units', () => {
    expect(parseRefundAmount('10', 'EUR')).toEqual({ minor: 1000 });
    expect(parseRefundAmount(' 10.5 ', 'EUR')).toEqual({ minor: 1050 });
    expect(parseRefundAmount('10,05', 'EUR')).toEqual({ minor: 1005 });
    expect(parseRefundAmount('0.01', 'EUR')).toEqual({ minor: 1 });
    expect(parseRefundAmount('500', 'JPY')).toEqual({ minor: 500 });
    expect(parseRefundAmount('1.234', 'KWD')).toEqual({ minor: 1234 });
  });

  it('says what is wrong with anything else', () => {
    expect(parseRefundAmount('10.001', 'EUR')).toEqual({ problem: 'EUR has 2 decimal places at most.' });
    expect(parseRefundAmount('5.5', 'JPY')).toEqual({ problem: 'JPY has no decimal places.' });
    for (const typed of ['', '-1', '1e3', '€10', '10.', '1 000'])
      expect(parseRefundAmount(typed, 'EUR')).toEqual({ problem: 'Enter an amount in EUR, such as 10.00.' });
    expect(parseRefundAmount('999999999999999', 'EUR')).toEqual({ problem: 'This amount is too large.' });
  });
});
