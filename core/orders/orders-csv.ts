import { minorUnits } from '../money.js';
import type { OrderData } from '../checkout/order-model.js';

/**
 * The orders list as CSV (RFC 4180, CRLF lines), for reconciliation in a spreadsheet. Amounts in the
 * currency's major unit with its digits (12.50 EUR, 1250 JPY), times in UTC ISO 8601.
 */

export const ORDER_CSV_COLUMNS = [
  'cartId',
  'createdAt',
  'status',
  'amount',
  'refundedTotal',
  'currency',
  'cardBrand',
  'cardLast4',
  'createdWith',
  'paymentLinkId',
] as const;

/** A cell a spreadsheet would read as a formula (or as one after a tab or line break it strips). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: a value starting with =, +, -, @, a tab or a carriage return gets a leading apostrophe, so
 * a spreadsheet shows it as text instead of running it (CSV injection: `extra` is the merchant's
 * customer's data); then quoted when it holds a comma, a quote or a line break.
 */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** Minor units as a decimal in the currency's major unit: 1250 EUR → "12.50". */
export function majorUnits(amountMinor: number, currency: string): string {
  const digits = minorUnits(currency);
  if (digits === 0) return String(amountMinor);
  const text = String(amountMinor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * The whole export: the fixed columns, then one `extra.<key>` column per key any of these orders
 * carries (sorted), so a merchant's own reference lands in a column of its own.
 */
export function ordersCsv(orders: readonly OrderData[]): string {
  const extraKeys = [...new Set(orders.flatMap((o) => Object.keys(o.extra)))].sort();
  const lines = [csvLine([...ORDER_CSV_COLUMNS, ...extraKeys.map((k) => `extra.${k}`)])];
  for (const order of orders) {
    lines.push(
      csvLine([
        order.cartId,
        order.createdAt,
        order.status,
        majorUnits(order.amount, order.currency),
        majorUnits(order.refundedTotal, order.currency),
        order.currency,
        order.payment?.brand ?? '',
        order.payment?.last4 ?? '',
        order.createdWith,
        order.paymentLinkId ?? '',
        ...extraKeys.map((k) => order.extra[k] ?? ''),
      ]),
    );
  }
  return lines.join('');
}
