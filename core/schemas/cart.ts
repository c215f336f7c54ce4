import { z } from 'zod';
import currencyCodes from 'currency-codes';
import countries from 'i18n-iso-countries';
import { cartTotal } from '../money.js';

/** Bounds of DESIGN.md §4, named so the error messages and the OpenAPI document say the same. */
export const LIMITS = {
  items: 100,
  string: 255,
  description: 2000,
  url: 2048,
  extraKeys: 50,
  bodyBytes: 256 * 1024,
} as const;

// ISO 4217 codes that are not money a customer can pay in: funds, precious metals, testing, "no currency".
const NON_PAYABLE_CURRENCIES = new Set(['XAU', 'XAG', 'XPD', 'XPT', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XSU', 'XUA', 'XTS', 'XXX']);

const text = (max: number = LIMITS.string) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const httpUrl = z
  .url({ protocol: /^https?$/, hostname: z.regexes.domain, error: 'must be an absolute http(s) URL' })
  .max(LIMITS.url, `must be at most ${LIMITS.url} characters`);

const httpsUrl = z
  .url({ protocol: /^https$/, hostname: z.regexes.domain, error: 'must be a public https URL' })
  .max(LIMITS.url, `must be at most ${LIMITS.url} characters`);

export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code in upper case, e.g. "EUR"')
  .refine((c) => currencyCodes.code(c) !== undefined && !NON_PAYABLE_CURRENCIES.has(c), 'is not an ISO 4217 currency code')
  .meta({ description: 'ISO 4217 currency code, upper case', example: 'EUR' });

export const countrySchema = z
  .string()
  .regex(/^[A-Z]{2,3}$/, 'must be an ISO 3166-1 alpha-2 or alpha-3 code in upper case, e.g. "FR" or "FRA"')
  .refine((c) => countries.isValid(c), 'is not an ISO 3166-1 country code')
  .meta({ description: 'ISO 3166-1 alpha-2 or alpha-3 country code, upper case', example: 'FR' });

export const storeSchema = z
  .strictObject({
    platformUuid: z.uuid('must be the platformUuid you were given (a UUID)'),
    name: text(),
    url: httpsUrl,
    logo: httpsUrl.optional(),
  })
  .meta({ id: 'Store' });

export const itemSchema = z
  .strictObject({
    title: text(),
    description: text(LIMITS.description),
    price: z.int('must be an integer amount in minor units (e.g. cents)').min(0, 'must be 0 or more').max(Number.MAX_SAFE_INTEGER),
    quantity: z.int('must be a whole number').min(1, 'must be at least 1').max(1_000_000),
    url: httpUrl,
    image: httpUrl,
    zeroPay: z.boolean(),
    sku: text().optional(),
    productId: text().optional(),
    variantId: text().optional(),
    variantOptions: z
      .array(text().regex(/^[^:]+ : .+$/, 'must have the form "<Key> : <Value>", e.g. "Size : M"'))
      .max(LIMITS.items)
      .optional(),
  })
  .superRefine((item, ctx) => {
    if (item.zeroPay && item.price !== 0) {
      ctx.addIssue({ code: 'custom', path: ['zeroPay'], message: 'can be true only when price is 0' });
    }
  })
  .meta({ id: 'Item' });

export const cartSchema = z
  .strictObject({
    currency: currencySchema,
    country: countrySchema,
    items: z.array(itemSchema).min(1, 'must hold at least one item').max(LIMITS.items, `must hold at most ${LIMITS.items} items`),
    extra: z
      .record(z.string().max(LIMITS.string), z.string().max(LIMITS.string, `must be at most ${LIMITS.string} characters`))
      .refine((e) => Object.keys(e).length <= LIMITS.extraKeys, `must have at most ${LIMITS.extraKeys} keys`),
    merchantUrls: z.strictObject({ successUrl: httpUrl, failureUrl: httpUrl }),
  })
  .superRefine((cart, ctx) => {
    if (cart.items.length > 0 && cartTotal(cart.items) <= 0) {
      ctx.addIssue({ code: 'custom', path: ['items'], message: 'the cart total must be greater than 0' });
    }
    if (cartTotal(cart.items) > Number.MAX_SAFE_INTEGER) {
      ctx.addIssue({ code: 'custom', path: ['items'], message: 'the cart total is too large' });
    }
  })
  .meta({ id: 'Cart' });

export const createCartRequestSchema = z
  .strictObject({ cartObject: z.strictObject({ store: storeSchema, cart: cartSchema }) })
  .meta({ id: 'CreateCartRequest' });

export type Store = z.output<typeof storeSchema>;
export type Item = z.output<typeof itemSchema>;
export type Cart = z.output<typeof cartSchema>;
export type CreateCartRequest = z.output<typeof createCartRequestSchema>;
