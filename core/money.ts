import currencyCodes from 'currency-codes';
import { numberFormat } from './intl-formats.js';

/** Digits after the decimal point for an ISO 4217 currency (JPY 0, EUR 2, KWD 3). */
export function minorUnits(currency: string): number {
  return currencyCodes.code(currency)?.digits ?? 2;
}

/** Formats an amount in minor units for a customer, e.g. 1999 EUR → "€19.99". */
export function formatAmount(amountMinor: number, currency: string, locale = 'en'): string {
  const digits = minorUnits(currency);
  return numberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(amountMinor / 10 ** digits);
}

export function cartTotal(items: ReadonlyArray<{ price: number; quantity: number }>): number {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}
