import { describe, expect, it } from 'vitest';
import { csvCell, majorUnits, ordersCsv } from '../../core/orders/orders-csv.js';
import type { OrderData } from '../../core/checkout/order-model.js';

const order = (edit: Partial<OrderData> = {}): OrderData => ({
  cartId: 'AAAAAAAAAAAAAAAAAAAAAAAA',
  status: 'paid',
  amount: 5499,
  currency: 'EUR',
  country: 'FR',
  captureMethod: 'automatic',
  capturedAmount: 5499,
  refundedTotal: 1000,
  payment: { brand: 'visa', last4: '1111', savedCard: false },
  failureCode: null,
  cancelledBy: null,
  customer: { email: 'jane@example.com' },
  items: [],
  extra: {},
  createdWith: 'api_key',
  paymentLinkId: null,
  retryOf: null,
  retryRoot: null,
  recoveryUrl: null,
  recoveredFrom: null,
  dispute: null,
  earlyFraudWarningAt: null,
  createdAt: '2030-01-31T10:00:00.000Z',
  paidAt: '2030-01-31T10:01:00.000Z',
  ...edit,
});

describe('the orders CSV export', () => {
  it.each(['=HYPERLINK("http://evil.example")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd'])('keeps %j from being read as a formula', (value) => {
    const cell = csvCell(value);
    expect(cell.replace(/^"/, '').startsWith("'")).toBe(true);
  });

  it('quotes commas, quotes and line breaks, and leaves plain text alone', () => {
    expect(csvCell('order-42')).toBe('order-42');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=1,2')).toBe(`"'=1,2"`);
  });

  it('writes amounts in the currency’s major unit with its digits', () => {
    expect(majorUnits(5499, 'EUR')).toBe('54.99');
    expect(majorUnits(5, 'EUR')).toBe('0.05');
    expect(majorUnits(1250, 'JPY')).toBe('1250');
    expect(majorUnits(1234, 'KWD')).toBe('1.234');
  });

  it('has the payment link of a link’s order, and one column per extra key any order carries, each cell escaped', () => {
    const csv = ordersCsv([
      order({ extra: { orderRef: '=cmd|calc', channel: 'web' } }),
      order({ cartId: 'BBBBBBBBBBBBBBBBBBBBBBBB', payment: null, extra: {}, paymentLinkId: 'pl_3Jd8s0aKq1VbT7wYxZ2mNg' }),
    ]);
    expect(csv.split('\r\n')).toEqual([
      'cartId,createdAt,status,amount,refundedTotal,currency,cardBrand,cardLast4,createdWith,paymentLinkId,extra.channel,extra.orderRef',
      "AAAAAAAAAAAAAAAAAAAAAAAA,2030-01-31T10:00:00.000Z,paid,54.99,10.00,EUR,visa,1111,api_key,,web,'=cmd|calc",
      'BBBBBBBBBBBBBBBBBBBBBBBB,2030-01-31T10:00:00.000Z,paid,54.99,10.00,EUR,,,api_key,pl_3Jd8s0aKq1VbT7wYxZ2mNg,,',
      '',
    ]);
  });
});
