import { z } from 'zod';
import { minorUnits } from '../money.js';
import { ACCEPTED_CURRENCIES } from './cart-schema.js';
import { processorCurrencies, smallestChargeable } from './processor-amounts.js';

type Processor = Parameters<typeof processorCurrencies>[0];

export const currencyListSchema = z
  .strictObject({
    data: z.array(
      z
        .strictObject({
          code: z.string().meta({ description: 'ISO 4217 code: what cartObject.cart.currency takes', example: 'KWD' }),
          exponent: z
            .int()
            .meta({ description: 'ISO 4217 minor-unit digits: every amount of the API is in these minor units (JPY 0, EUR 2, KWD 3)', example: 3 }),
          processors: z
            .array(
              z.strictObject({
                processor: z.enum(['sandbox', 'stripe']).meta({ description: 'The payment processor' }),
                exponent: z
                  .int()
                  .meta({ description: 'The digits after the decimal point of the unit it charges in (Stripe charges MGA in whole ariary: 0)', example: 3 }),
                step: z
                  .int()
                  .meta({ description: 'Its own amounts are multiples of this, in its unit (Stripe’s three-decimal amounts end in 0: 10)', example: 10 }),
                multipleOf: z.int().meta({
                  description:
                    'What that means for you: every amount (total, capture, refund) in ISO minor units must be a multiple of this, else 422 AMOUNT_NOT_REPRESENTABLE',
                  example: 10,
                }),
              }),
            )
            .meta({ description: 'This deployment’s processor, and in sandbox also production’s (Stripe), whose rules the sandbox applies' }),
        })
        .meta({ id: 'Currency' }),
    ),
  })
  .meta({ id: 'CurrencyList' });
export type CurrencyList = z.output<typeof currencyListSchema>;

/**
 * Every currency the deployment accepts on create-cart (ACCEPTED_CURRENCIES, the ones its processor
 * charges), with its ISO exponent and, per processor, the unit it charges in and the multiple every
 * amount must be (core/checkout/processor-amounts.ts, what create-cart, capture and refund check).
 * Sandbox lists Stripe too: the rules a merchant meets at go-live.
 */
export function acceptedCurrencies(processor: Processor): CurrencyList {
  const processors: Processor[] = processor === 'stripe' ? ['stripe'] : ['sandbox', 'stripe'];
  const own = processorCurrencies(processor);
  return {
    data: ACCEPTED_CURRENCIES.filter((code) => own.has(code)).map((code) => ({
      code,
      exponent: minorUnits(code),
      processors: processors.map((name) => {
        const units = processorCurrencies(name).get(code)!;
        return { processor: name, exponent: units.exponent, step: units.step, multipleOf: smallestChargeable(processorCurrencies(name), code)! };
      }),
    })),
  };
}
