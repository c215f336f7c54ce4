import { minorUnits } from '../../core/money.js';

/**
 * A refund amount as a person types it, in the order's currency (`10`, `10.5`, `10,50`), into minor
 * units; or why it cannot be one. The merchant API takes minor units; people think in the currency.
 */
export function parseRefundAmount(typed: string, currency: string): { minor: number } | { problem: string } {
  const digits = minorUnits(currency);
  const match = /^(\d{1,15})(?:[.,](\d+))?$/.exec(typed.trim());
  if (!match) return { problem: `Enter an amount in ${currency}, such as ${digits ? `10.${'0'.repeat(digits)}` : '10'}.` };
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return { problem: digits ? `${currency} has ${digits} decimal places at most.` : `${currency} has no decimal places.` };
  const minor = Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  if (!Number.isSafeInteger(minor)) return { problem: 'This amount is too large.' };
  return { minor };
}
