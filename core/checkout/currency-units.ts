/**
 * How a processor writes amounts of one currency: `exponent` digits after the decimal point, and only
 * multiples of `step` (Stripe's three-decimal currencies end in 0: step 10).
 */
export interface CurrencyUnits {
  exponent: number;
  step: number;
}
