import { z } from 'zod';
import currencyCodes from 'currency-codes';
import { STRIPE_CURRENCIES } from './payment-processors/stripe-currencies.js';
import countries from 'i18n-iso-countries';
import { displayText } from '../display-text.js';
import { cartTotal } from '../money.js';
import { CAPTURE_METHODS } from './session.js';

declare module 'zod' {
  interface GlobalMeta {
    /** The OpenAPI enum of a field checked against a list by a refinement, so the document lists what the check accepts. */
    enum?: readonly string[];
  }
}

/**
 * The create-cart request and response, with the rules of docs/decisions/error-model.md. This file is
 * the single source for validation, for the TypeScript types and for the OpenAPI document, so the
 * three cannot drift apart.
 */

/** Bounds of create-cart, named so the error messages and the OpenAPI document say the same. */
export const LIMITS = {
  items: 100,
  string: 255,
  description: 2000,
  url: 2048,
  extraKeys: 50,
  variantOptions: 50,
  quantity: 1_000_000,
  bodyBytes: 256 * 1024,
} as const;

/** How long a session may last, in minutes: what a merchant may ask for, and what it gets when it asks nothing. */
export const SESSION_MINUTES = { min: 5, max: 1440, default: 45 } as const;

/** How many retries of a failed session (POST /v2/merchant/carts/{cartId}/retry) one cart allows, counted over the retries of its retries. */
export const RETRIES = { min: 0, max: 3, default: 3 } as const;

/** Abandoned-cart recovery's reminder delay, in minutes after the abandonment (workflows/cart-session/reminder.ts). */
export const RECOVERY_REMINDER_MINUTES = { min: 5, max: 10080, default: 60 } as const;

/** Abandoned-cart recovery (docs/abandoned-cart-recovery.md): an abandoned session's order_abandoned carries a link that reopens the cart. */
const recoverySchema = z
  .strictObject({
    enabled: z.boolean('must be true or false').meta({
      description:
        'true: when a session of this cart is abandoned, its order_abandoned carries data.recoveryUrl, a link valid 30 days that opens a new session of the same cart (its order says recoveredFrom); the checkout page offers the customer "Remind me if I don\'t finish", and one who ticked it and verified a contact gets one reminder with the link.',
      example: true,
    }),
    // As sessionMinutes: echoed as sent; absent means the default.
    reminderMinutes: z
      .int('must be a whole number of minutes')
      .min(RECOVERY_REMINDER_MINUTES.min, `must be at least ${RECOVERY_REMINDER_MINUTES.min} (minutes)`)
      .max(RECOVERY_REMINDER_MINUTES.max, `must be at most ${RECOVERY_REMINDER_MINUTES.max} (minutes, 7 days)`)
      .optional()
      .meta({
        description: `When the reminder goes, to a customer who asked for it: minutes after the abandonment (${RECOVERY_REMINDER_MINUTES.min} to ${RECOVERY_REMINDER_MINUTES.max}); ${RECOVERY_REMINDER_MINUTES.default} when absent.`,
        default: RECOVERY_REMINDER_MINUTES.default,
        example: 60,
      }),
  })
  .meta({ id: 'CartRecovery', description: 'Abandoned-cart recovery; absent is the same as enabled false.' });

// ISO 4217 codes that are not money a customer can pay in: funds codes, precious metals, bond-market
// units, testing and "no currency". They are in the official list, so the list alone would let them by.
const NON_PAYABLE_CURRENCIES = new Set([
  'BOV',
  'CHE',
  'CHW',
  'CLF',
  'COU',
  'MXV',
  'USN',
  'UYI',
  'UYW',
  'XAG',
  'XAU',
  'XPD',
  'XPT',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XSU',
  'XUA',
  'XTS',
  'XXX',
]);

// Control characters break the page, logs and PostgreSQL (jsonb refuses \u0000); lone surrogates are
// not text. Multi-line text may keep tabs and line breaks.
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are what gets refused.
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- as above: control characters other than tab and line breaks are refused.
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function plainText(value: string, multiLine = false): boolean {
  return !LONE_SURROGATE.test(value) && !(multiLine ? CONTROL_EXCEPT_LINE_BREAKS : CONTROL).test(value);
}

/** A JSON object, not an array: cross-field checks must not run on `[null, null]` sent for an object. */
const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Required text: not blank, shown as sent (not trimmed), so held to the display-text rule (core/display-text.ts). */
const text = (max: number = LIMITS.string, multiLine = false) =>
  displayText(
    z
      .string()
      .min(1, { error: 'must not be empty', abort: true })
      .max(max, `must be at most ${max} characters`)
      .refine((v) => v.trim().length > 0, 'must not be blank')
      .refine((v) => plainText(v, multiLine), 'must not contain control characters'),
  );

/** Free text that may be empty (metadata values). */
const optionalText = (max: number = LIMITS.string) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => plainText(v), 'must not contain control characters');

/**
 * Loopback hosts a developer's own machine serves: `localhost`, `*.localhost`, `127.0.0.1`, `[::1]`
 * (as the URL parser gives a hostname). The schema accepts them in http(s) URLs (product links and
 * return URLs) because it is the same in every environment; production create-cart refuses them
 * (application/carts/url-policy.ts).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '127.0.0.1' || host === '[::1]';
}

/**
 * An absolute http(s) URL, checked as sent. Not z.url(): it trims the value and strips tabs and line
 * breaks before checking, so a URL with control characters would pass, changed, instead of being
 * refused, and what we echo and redirect to would not be what the merchant sent. https URLs need a
 * public host name; http(s) URLs may also name a loopback host, for sandbox only.
 */
function url(protocols: 'https' | 'http(s)') {
  const message =
    protocols === 'https'
      ? 'must be an absolute https URL with a public host name'
      : 'must be an absolute http(s) URL with a public host name (or, in sandbox only, localhost, *.localhost, 127.0.0.1 or [::1])';
  const schemes = protocols === 'https' ? ['https:'] : ['http:', 'https:'];
  const wellFormed = (value: string) => {
    if (!/^https?:\/\//i.test(value)) return false;
    const parsed = URL.parse(value);
    if (parsed === null || !schemes.includes(parsed.protocol)) return false;
    return z.regexes.domain.test(parsed.hostname) || (protocols === 'http(s)' && isLoopbackHost(parsed.hostname));
  };
  return (
    z
      .string()
      .refine((v) => plainText(v), 'must not contain control characters')
      .refine(wellFormed, message)
      .refine((v) => v.length <= LIMITS.url, `must be at most ${LIMITS.url} characters`)
      // The URL parser quietly percent-encodes spaces; a URL we echo and redirect to must be sent clean.
      .regex(/^[^\s]+$/, 'must not contain spaces')
      .refine((v) => !URL.canParse(v) || (new URL(v).username === '' && new URL(v).password === ''), 'must not contain a user name or password')
      .meta({ format: 'uri', example: protocols === 'https' ? 'https://store.example' : 'https://store.example/products/t-shirt' })
  );
}

/** Said in the OpenAPI document of every URL production checks against the merchant's registered domains. */
const ON_REGISTERED_DOMAIN = "In production its host must be one of the merchant's registered domains or a subdomain of one.";
const LOOPBACK_IN_SANDBOX = 'Sandbox also accepts http://localhost, *.localhost, 127.0.0.1 and [::1] (any port); production refuses them.';

/** The ISO 4217 list less what a customer cannot pay in: what the schema reads as a currency at all. */
export const PAYABLE_CURRENCIES: readonly string[] = currencyCodes
  .codes()
  .filter((c) => !NON_PAYABLE_CURRENCIES.has(c))
  .sort();
const PAYABLE = new Set(PAYABLE_CURRENCIES);

/**
 * Every currency a deployment accepts: a payable one its processor charges. Sandbox charges under the
 * rules of Stripe, production's processor (core/checkout/processor-amounts.ts), so both accept this
 * one list, which `GET /v2/public/api/currencies` gives with each one's units (core/checkout/accepted-currencies.ts)
 * and the OpenAPI enum is.
 */
export const ACCEPTED_CURRENCIES: readonly string[] = PAYABLE_CURRENCIES.filter((c) => STRIPE_CURRENCIES.has(c));

/** Every country code create-cart accepts: ISO 3166-1 alpha-2 and alpha-3. The OpenAPI enum is this list. */
export const COUNTRY_CODES: readonly string[] = [...Object.keys(countries.getAlpha2Codes()), ...Object.keys(countries.getAlpha3Codes())].sort();
const COUNTRIES = new Set(COUNTRY_CODES);

// The pattern check comes first so a lower-case or malformed code gets the message that says how to write it.
export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code in upper case, e.g. "EUR"')
  .refine((c) => PAYABLE.has(c), 'is not an ISO 4217 currency a customer can pay in')
  .meta({
    description:
      "ISO 4217 currency code, upper case: one of those GET /v2/public/api/currencies lists (this enum). Every amount (items, totals, captures, refunds, webhooks, dashboard) is in its ISO 4217 minor units (JPY 0 decimals, EUR 2, KWD 3), whatever the payment processor. The processor must be able to charge the currency and the total exactly, else 422 CURRENCY_NOT_SUPPORTED or AMOUNT_NOT_REPRESENTABLE: each currency's `multipleOf` there is what its amounts must be multiples of (BHD, JOD, KWD, OMR and TND 10, MGA 100).",
    example: 'EUR',
    enum: ACCEPTED_CURRENCIES,
  });

export const countrySchema = z
  .string()
  .regex(/^[A-Z]{2,3}$/, 'must be an ISO 3166-1 alpha-2 or alpha-3 code in upper case, e.g. "FR" or "FRA"')
  .refine((c) => COUNTRIES.has(c), 'is not an ISO 3166-1 country code')
  .meta({ description: 'ISO 3166-1 alpha-2 or alpha-3 country code, upper case', example: 'FR', enum: COUNTRY_CODES });

export const storeSchema = z
  .strictObject({
    platformUuid: z.uuid('must be the platformUuid you were given (a UUID)').meta({
      description: 'Identifies the merchant; assigned by us when the merchant account is created, one per environment.',
      example: '8f5e3c2a-6a7b-4d0e-9f21-3b4c5d6e7f80',
    }),
    name: text().meta({ description: 'Store name shown on the checkout page', example: 'Demo Store' }),
    url: url('https').meta({ description: `The store's public https address. ${ON_REGISTERED_DOMAIN}` }),
    logo: url('https')
      .optional()
      .meta({ description: `Public https address of the store logo. ${ON_REGISTERED_DOMAIN}`, example: 'https://store.example/logo.png' }),
  })
  .meta({ id: 'Store', description: 'The merchant store, as shown to the customer.' });

// Key and value must not start or end with a space, and the key holds no colon ("Time : 10:30" is fine).
const VARIANT_OPTION = /^[^:\s](?:[^:]*[^:\s])? : \S(?:.*\S)?$/;

export const itemSchema = z
  .strictObject({
    title: text().meta({ description: 'Product name', example: 'T-shirt' }),
    description: text(LIMITS.description, true).meta({ description: 'Product description', example: 'Organic cotton' }),
    price: z
      .int('must be an integer amount in minor units (e.g. cents)')
      .min(0, 'must be 0 or more')
      .max(Number.MAX_SAFE_INTEGER, 'is too large')
      .meta({ description: 'Unit price before tax, in minor units of the currency (1999 = 19.99 EUR). Line total = price × quantity.', example: 1999 }),
    quantity: z
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(LIMITS.quantity, `must be at most ${LIMITS.quantity}`)
      .meta({ description: 'Number of units', example: 2 }),
    url: url('http(s)').meta({ description: `Public product page. ${LOOPBACK_IN_SANDBOX}` }),
    image: url('http(s)').meta({ description: `Product thumbnail. ${LOOPBACK_IN_SANDBOX}`, example: 'https://store.example/products/t-shirt.png' }),
    zeroPay: z.boolean('must be true or false').meta({ description: 'true only for a free item (price 0); false for every paid item', example: false }),
    sku: text().optional().meta({ description: 'Merchant SKU', example: 'TS-ORG-M-BLU' }),
    productId: text().optional().meta({ description: 'Merchant product identifier', example: 'prod_123' }),
    variantId: text().optional().meta({ description: 'Merchant variant identifier', example: 'var_456' }),
    variantOptions: z
      .array(text().regex(VARIANT_OPTION, 'must have the form "<Key> : <Value>", e.g. "Size : M"'))
      .max(LIMITS.variantOptions, `must hold at most ${LIMITS.variantOptions} options`)
      .optional()
      .meta({ description: 'Variant attributes, each "<Key> : <Value>"', example: ['Size : M', 'Color : Blue'] }),
  })
  .superRefine(
    (item, ctx) => {
      if (item.zeroPay && item.price !== 0) ctx.addIssue({ code: 'custom', path: ['zeroPay'], message: 'can be true only when price is 0' });
    },
    // Runs even when other fields of the item are wrong, so one response lists every mistake.
    { when: (payload) => isObject(payload.value) && !payload.issues.some((i) => i.path?.[0] === 'price' || i.path?.[0] === 'zeroPay') },
  )
  .meta({ id: 'Item', description: 'A line item.' });

export const extraSchema = z
  .record(text(), optionalText().meta({ description: 'Any string' }))
  .refine((e) => Object.keys(e).length <= LIMITS.extraKeys, `must have at most ${LIMITS.extraKeys} keys`)
  .meta({
    description: `Your own metadata (string values; at most ${LIMITS.extraKeys} keys), echoed exactly in every webhook. Put your order reference here.`,
    example: { orderRef: 'order-42' },
  });

export const merchantUrlsSchema = z
  .strictObject({
    successUrl: url('http(s)').meta({
      description: `Where the customer goes after a successful payment attempt (not a confirmation: wait for the webhook). ${ON_REGISTERED_DOMAIN} ${LOOPBACK_IN_SANDBOX}`,
      example: 'https://store.example/checkout/success',
    }),
    failureUrl: url('http(s)').meta({
      description: `Where the customer goes after a failed or cancelled payment. ${ON_REGISTERED_DOMAIN} ${LOOPBACK_IN_SANDBOX}`,
      example: 'https://store.example/checkout/failure',
    }),
  })
  .meta({ id: 'MerchantUrls' });

export const cartSchema = z
  .strictObject({
    currency: currencySchema,
    country: countrySchema,
    items: z
      .array(itemSchema)
      .min(1, 'must hold at least one item')
      .max(LIMITS.items, `must hold at most ${LIMITS.items} items`)
      .meta({ description: `One to ${LIMITS.items} line items` }),
    extra: extraSchema,
    merchantUrls: merchantUrlsSchema,
    // No zod default: an absent value is echoed as absent, and means the service's session lifetime
    // (SESSION_LIFETIME_SECONDS, fixed at 45 minutes in production).
    sessionMinutes: z
      .int('must be a whole number of minutes')
      .min(SESSION_MINUTES.min, `must be at least ${SESSION_MINUTES.min} (minutes)`)
      .max(SESSION_MINUTES.max, `must be at most ${SESSION_MINUTES.max} (minutes, 24 hours)`)
      .optional()
      .meta({
        description: `How long the customer has to pay, in minutes (${SESSION_MINUTES.min} to ${SESSION_MINUTES.max}); ${SESSION_MINUTES.default} when absent. Sets \`expiresOn\`, the page's countdown and when the session ends with \`order_abandoned\`.`,
        default: SESSION_MINUTES.default,
        example: 15,
      }),
    // Optional with no default, so the cart is echoed exactly as sent; absent means automatic.
    captureMethod: z.enum(CAPTURE_METHODS, { error: 'must be "automatic" or "manual"' }).optional().meta({
      description:
        'automatic (the default): the payment is captured at checkout. manual: the card is only authorized; the order is `authorized` until you capture it (POST /v2/merchant/orders/{cartId}/capture, all or part) or void it (…/void). A hold neither captured nor voided within AUTHORIZATION_HOLD_DAYS (7 days) is voided and the order cancelled.',
      example: 'manual',
    }),
    // As sessionMinutes: echoed as sent; absent means the default.
    retries: z
      .int('must be a whole number of retries')
      .min(RETRIES.min, `must be at least ${RETRIES.min}`)
      .max(RETRIES.max, `must be at most ${RETRIES.max}`)
      .optional()
      .meta({
        description: `How many times a failed session of this cart may be retried with POST /v2/merchant/carts/{cartId}/retry (${RETRIES.min} to ${RETRIES.max}); ${RETRIES.default} when absent. The retries of a retry count against this cart's number; 0 refuses every retry.`,
        default: RETRIES.default,
        example: 1,
      }),
    // Echoed as sent; absent means no recovery, as {enabled: false} does.
    recovery: recoverySchema.optional(),
  })
  .superRefine(
    (cart, ctx) => {
      const total = cartTotal(cart.items);
      if (total <= 0) ctx.addIssue({ code: 'custom', path: ['items'], message: 'the cart total must be greater than 0' });
      if (total > Number.MAX_SAFE_INTEGER) ctx.addIssue({ code: 'custom', path: ['items'], message: 'the cart total is too large' });
    },
    // The total means something only once every item's price and quantity are valid.
    { when: (payload) => isObject(payload.value) && !payload.issues.some((i) => i.path?.[0] === 'items') },
  )
  .meta({ id: 'Cart', description: 'What the customer pays for. The total (Σ price × quantity) must be greater than 0.' });

export const createCartRequestSchema = z
  .strictObject({
    cartObject: z.strictObject({ store: storeSchema, cart: cartSchema }).meta({ id: 'CartObject' }),
  })
  .meta({ id: 'CreateCartRequest' });

export const createCartResponseSchema = z
  .strictObject({
    code: z.literal('SUCCESS'),
    message: z.string().meta({ example: 'Cart created' }),
    data: z.strictObject({
      cartId: z.string().meta({
        description: 'Bearer token of the session (144 random bits, URL-safe). Redirect the customer to {checkout_url}/?token=<cartId>.',
        example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe',
      }),
      cartData: z.strictObject({ store: storeSchema, cart: cartSchema }).meta({ description: 'The store and cart exactly as accepted' }),
      expiresOn: z.iso
        .datetime()
        .meta({ description: `Creation + \`sessionMinutes\` (${SESSION_MINUTES.default} when absent), ISO 8601 UTC`, example: '2025-01-01T12:45:00.000Z' }),
    }),
  })
  .meta({ id: 'CreateCartResponse' });

/** What `POST /v2/merchant/carts/{cartId}/expire` answers once the session has ended. */
export const expiredCartSchema = z
  .strictObject({
    cartId: z.string().meta({ example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
    status: z.literal('cancelled'),
    cancelledBy: z.literal('merchant').meta({ description: 'As `data.cancelledBy` of the `order_cancelled` event sent for it' }),
  })
  .meta({ id: 'ExpiredCart' });

/** What `POST /v2/merchant/carts/{cartId}/retry` answers: the new session, to send the customer to. */
export const retriedCartSchema = z
  .strictObject({
    cartId: z.string().meta({
      description: 'The new session’s cartId (a new bearer token); its order and events say retryOf: the retried cartId',
      example: 'Zk4m2Pq9Xw7Ls1Vb3Nc8Rt0y',
    }),
    expiresOn: z.iso.datetime().meta({ description: 'Now + the cart’s sessionMinutes (45 when absent), ISO 8601 UTC', example: '2025-01-01T13:30:00.000Z' }),
    url: z.string().meta({
      description: 'The hosted page of the new session, {checkout_url}/?token=<cartId>: redirect the customer there',
      format: 'uri',
      example: 'https://checkout.example/?token=Zk4m2Pq9Xw7Ls1Vb3Nc8Rt0y',
    }),
  })
  .meta({ id: 'RetriedCart' });

export type Store = z.output<typeof storeSchema>;
export type Item = z.output<typeof itemSchema>;
export type Cart = z.output<typeof cartSchema>;
export type CreateCartRequest = z.output<typeof createCartRequestSchema>;
export type CreateCartResponse = z.output<typeof createCartResponseSchema>;
export type ExpiredCart = z.output<typeof expiredCartSchema>;
export type RetriedCart = z.output<typeof retriedCartSchema>;
