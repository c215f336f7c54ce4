import { formatAmount, minorUnits } from '../money.js';
import type { CurrencyUnits } from './currency-units.js';
import { STRIPE_CURRENCIES } from './payment-processors/stripe-currencies.js';

/** The currencies a processor charges, each in its own units. */
export type ProcessorCurrencies = ReadonlyMap<string, CurrencyUnits>;

/**
 * Why an amount in ISO 4217 minor units cannot go to a processor, as the API's 422 codes: the currency
 * is not one it charges, or the amount is not a multiple of the smallest it can charge (`multipleOf`,
 * in ISO 4217 minor units), or too large to write in its units.
 */
export type AmountRefusal = { code: 'CURRENCY_NOT_SUPPORTED' } | { code: 'AMOUNT_NOT_REPRESENTABLE'; multipleOf: number };

export type ProcessorAmount = { ok: true; amount: number } | { ok: false; refusal: AmountRefusal };

const pow10 = (n: number) => 10n ** BigInt(n);

/**
 * An amount in the cart's ISO 4217 minor units, in the processor's units: exact, or refused. Merchants
 * work in ISO minor units everywhere; this is the one place an amount changes unit on its way out.
 */
export function toProcessorAmount(currencies: ProcessorCurrencies, currency: string, isoAmount: number): ProcessorAmount {
  const units = currencies.get(currency);
  if (!units) return { ok: false, refusal: { code: 'CURRENCY_NOT_SUPPORTED' } };
  const isoExponent = minorUnits(currency);
  const amount = BigInt(isoAmount);
  const shift = units.exponent - isoExponent;
  const scaled = shift >= 0 ? amount * pow10(shift) : amount % pow10(-shift) === 0n ? amount / pow10(-shift) : undefined;
  if (scaled === undefined || scaled % BigInt(units.step) !== 0n || scaled > BigInt(Number.MAX_SAFE_INTEGER)) {
    return { ok: false, refusal: { code: 'AMOUNT_NOT_REPRESENTABLE', multipleOf: smallestChargeable(currencies, currency)! } };
  }
  return { ok: true, amount: Number(scaled) };
}

/** The smallest amount, in ISO 4217 minor units, of which every chargeable amount is a multiple (KWD 10, MGA 100, EUR 1). */
export function smallestChargeable(currencies: ProcessorCurrencies, currency: string): number | undefined {
  const units = currencies.get(currency);
  if (!units) return undefined;
  const shift = units.exponent - minorUnits(currency);
  if (shift < 0) return Number(pow10(-shift)) * units.step;
  const scale = Number(pow10(shift));
  return units.step / gcd(units.step, scale);
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * An amount the processor cannot charge exactly, as the refusals of create-cart, capture and refund
 * say it: the code, what is wrong with the fix (`message`), and what the field must be (`field`).
 */
export interface Unchargeable {
  code: 'currency_not_supported' | 'amount_not_representable';
  message: string;
  field: string;
}

/** Why the processor cannot charge `amount` of `currency` exactly, or undefined when it can. */
export function unchargeable(currencies: ProcessorCurrencies, currency: string, amount: number): Unchargeable | undefined {
  const converted = toProcessorAmount(currencies, currency, amount);
  if (converted.ok) return undefined;
  const code = converted.refusal.code === 'CURRENCY_NOT_SUPPORTED' ? 'currency_not_supported' : 'amount_not_representable';
  return { code, ...describeRefusal(converted.refusal, currency, amount) };
}

/**
 * The amount in an adapter's units. Create-cart, capture and refund refuse what the processor cannot
 * take (`unchargeable`), so a refusal here is our bug, and says so.
 */
export function adapterAmount(currencies: ProcessorCurrencies, processor: string, currency: string, amount: number): number {
  const converted = toProcessorAmount(currencies, currency, amount);
  if (!converted.ok) throw new Error(`${processor}: ${converted.refusal.code}: ${amount} ${currency} (minor units)`);
  return converted.amount;
}

/**
 * An amount a processor reports (a dispute's), back in the cart's ISO 4217 minor units: the inverse of
 * toProcessorAmount. Stripe reports 5 ISK as 500 and 1,000.00 Ar as 1000; ours are 5 and 100000.
 * A currency the processor does not charge, or an amount with digits ISO 4217 cannot hold, is not one
 * of our payments, and says so.
 */
export function fromProcessorAmount(currencies: ProcessorCurrencies, processor: string, currency: string, processorAmount: number): number {
  const units = currencies.get(currency);
  if (!units) throw new Error(`${processor}: CURRENCY_NOT_SUPPORTED: ${processorAmount} ${currency} (processor units)`);
  const amount = BigInt(processorAmount);
  const shift = units.exponent - minorUnits(currency);
  if (shift <= 0) return Number(amount * pow10(-shift));
  if (amount % pow10(shift) !== 0n) throw new Error(`${processor}: ${processorAmount} ${currency} (processor units) has digits below ${currency}'s minor unit`);
  return Number(amount / pow10(shift));
}

function describeRefusal(refusal: AmountRefusal, currency: string, amount: number): { message: string; field: string } {
  if (refusal.code === 'CURRENCY_NOT_SUPPORTED') {
    return {
      message: `The payment processor cannot charge ${currency}. Use one of the currencies GET /v2/public/api/currencies lists.`,
      field: 'is not a currency the payment processor charges',
    };
  }
  const { multipleOf } = refusal;
  const below = amount - (amount % multipleOf);
  const nearest = [below, below + multipleOf].filter((n) => n > 0 && n <= Number.MAX_SAFE_INTEGER);
  const fix = nearest.length > 0 ? ` Use ${nearest.join(' or ')} (${nearest.map((n) => formatAmount(n, currency)).join(' or ')}).` : '';
  return {
    message: `The payment processor cannot charge ${amount} (minor units of ${currency}) exactly: ${currency} amounts must be multiples of ${multipleOf}.${fix} GET /v2/public/api/currencies gives each currency's multipleOf.`,
    field: `must be a multiple of ${multipleOf} (minor units of ${currency}) for the payment processor to charge it exactly`,
  };
}

/**
 * The sandbox charges in ISO 4217 minor units, under the rules of the processor production uses
 * (Stripe's): the same currencies and the same amounts are refused, so a merchant meets a refusal in
 * sandbox, not at go-live.
 */
export const SANDBOX_CURRENCIES: ProcessorCurrencies = new Map(
  [...STRIPE_CURRENCIES.keys()].map((currency) => [currency, { exponent: minorUnits(currency), step: smallestChargeable(STRIPE_CURRENCIES, currency)! }]),
);

/** The currency table of the processor a deployment charges with (PAYMENT_PROCESSOR). */
export function processorCurrencies(processor: 'stripe' | 'sandbox'): ProcessorCurrencies {
  return processor === 'stripe' ? STRIPE_CURRENCIES : SANDBOX_CURRENCIES;
}
