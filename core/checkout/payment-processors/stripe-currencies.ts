import type { CurrencyUnits } from '../currency-units.js';

/**
 * How Stripe reads a card payment's `amount`, per presentment currency, from Stripe's currency
 * documentation, https://docs.stripe.com/currencies (read 2026-11-26):
 * - "Currencies are two-decimal currencies unless otherwise specified."
 * - Zero-decimal ("the charge and the amount are the same, without requiring multiplication"): BIF, CLP,
 *   DJF, GNF, JPY, KMF, KRW, MGA, PYG, RWF, UGX, VND, VUV, XAF, XOF, XPF. MGA is two-decimal in ISO 4217,
 *   so 1,000.00 Ar is 100000 to us and 1000 to Stripe.
 * - Special cases: "ISK transitioned to a zero-decimal currency, but backwards compatibility requires you
 *   to represent it as a two-decimal value, where the decimal amount is always `00`. For example, to
 *   charge 5 ISK, provide an `amount` value of `500`." The same text is given for UGX, which the
 *   zero-decimal list also names; the special case is the more specific statement and the one about
 *   charges, so UGX is two-decimal with whole units only. HUF and TWD are zero-decimal "for payouts, even
 *   though you can charge two-decimal amounts": two-decimal here, as ISO 4217 has them.
 * - Three-decimal (BHD, JOD, KWD, OMR, TND): the API "require[s] the least-significant (last) digit to
 *   be 0", so a total of 1.005 KWD cannot be charged.
 * The currencies are the presentment currencies the page lists for card payments.
 */
const TWO_DECIMAL = [
  'USD AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BWP BYN BZD CAD',
  'CDF CHF CNY COP CRC CVE CZK DKK DOP DZD EGP ETB EUR FJD FKP GBP GEL GIP GMD GTQ GYD HKD HNL HTG',
  'HUF IDR ILS INR JMD KES KGS KHR KYD KZT LAK LBP LKR LRD LSL MAD MDL MKD MMK MNT MOP MUR MVR MWK',
  'MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SEK SGD',
  'SHP SLE SOS SRD SZL THB TJS TOP TRY TTD TWD TZS UAH UYU UZS WST XCD YER ZAR ZMW',
]
  .join(' ')
  .split(' ');
const ZERO_DECIMAL = ['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'] as const;
const WHOLE_UNITS_IN_TWO_DECIMALS = ['ISK', 'UGX'] as const;
const THREE_DECIMAL = ['BHD', 'JOD', 'KWD', 'OMR', 'TND'] as const;

export const STRIPE_CURRENCIES: ReadonlyMap<string, CurrencyUnits> = new Map<string, CurrencyUnits>([
  ...TWO_DECIMAL.map((c) => [c, { exponent: 2, step: 1 }] as const),
  ...ZERO_DECIMAL.map((c) => [c, { exponent: 0, step: 1 }] as const),
  ...WHOLE_UNITS_IN_TWO_DECIMALS.map((c) => [c, { exponent: 2, step: 100 }] as const),
  ...THREE_DECIMAL.map((c) => [c, { exponent: 3, step: 10 }] as const),
]);
