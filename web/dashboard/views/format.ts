import { formatAmount } from '../../../core/money.js';

/** Dates as operators and merchants compare them with logs and webhook bodies: UTC, to the second. */
export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function formatMoney(amountMinor: number, currency: string): string {
  return formatAmount(amountMinor, currency, 'en');
}

/** Words for the machine names shown in badges and tables (`partially_refunded` → "partially refunded"). */
export function words(name: string): string {
  return name.replaceAll('_', ' ');
}
