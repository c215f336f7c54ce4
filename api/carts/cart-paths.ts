import { z } from 'zod';
import { createCartRequestSchema, createCartResponseSchema, LIMITS, type CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { EXAMPLE_ITEM } from '../../core/webhooks/event-examples.js';
import { DEFAULT_LOCALE, LOCALES } from '../../core/locales.js';
import { AMOUNT_NOT_REPRESENTABLE_EXAMPLE, errorResponses, example, MERCHANT_SECURITY, requestIdHeader, type DocumentedError } from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';
import { overloaded } from '../../application/errors.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, REPLAYED_HEADER } from '../../application/carts/idempotency.js';

/** The route ./routes.ts serves, declared once: create-cart. api/docs/openapi.ts documents it from here. */

/** Where ./routes.ts is served (api/app.ts mounts it here). */
export const CART_MOUNT = '/v2/public/api/cart';

/** The platformUuid of the documented example; a sandbox with a merchant of this id accepts the example as written. */
export const EXAMPLE_PLATFORM_UUID = '8f5e3c2a-6a7b-4d0e-9f21-3b4c5d6e7f80';

/** The documented request, accepted exactly as written (test/integration/openapi-contract.test.ts sends it). */
export const CREATE_CART_EXAMPLE: CreateCartRequest = {
  cartObject: {
    store: { platformUuid: EXAMPLE_PLATFORM_UUID, name: 'Demo Store', url: 'https://store.example', logo: 'https://store.example/logo.png' },
    cart: {
      currency: 'EUR',
      country: 'FR',
      items: [EXAMPLE_ITEM],
      extra: { orderRef: 'order-42' },
      merchantUrls: { successUrl: 'https://store.example/checkout/success', failureUrl: 'https://store.example/checkout/failure' },
    },
  },
};

/** Every error the create-cart operation can answer, grouped by status, each with an example. */
const CREATE_CART_ERRORS: DocumentedError[] = [
  {
    description:
      "INVALID_JSON: the body is not JSON. VALIDATION_ERROR: one entry per bad field, by JSON path (also for a malformed Idempotency-Key, and for a name, title or description the checkout page shows that contains a bidirectional control character, U+202A–U+202E or U+2066–U+2069). In production also when the store URL, logo or a return URL is not on the merchant's registered domains (every cart, while it has none), or when any URL names a loopback host.",
    examples: [
      example('INVALID_JSON', 'The body is not valid JSON. Check for trailing commas, unquoted keys or a truncated body.'),
      example('VALIDATION_ERROR', 'The request has 2 invalid fields.', [
        { path: 'cartObject.cart.items[0].price', message: 'must be an integer amount in minor units (e.g. cents)' },
        { path: 'cartObject.cart.items[2].zeroPay', message: 'can be true only when price is 0' },
      ]),
      example(
        'VALIDATION_ERROR',
        "The store URL, logo and return URLs must be on this merchant's registered domains (shop.example) or their subdomains; loopback hosts are for sandbox only.",
        [
          {
            path: 'cartObject.cart.merchantUrls.successUrl',
            message: "host evil.example is not one of this merchant's registered domains (shop.example) nor a subdomain of one",
          },
        ],
      ),
    ],
  },
  {
    description:
      "UNAUTHORIZED: an Authorization header was sent that does not carry this merchant's active API key (unknown, another merchant's, revoked or rotated out, or not `Bearer <key>`): a request with a header is never taken as a public one. Also, when this merchant requires its API key on create-cart (an operator setting, off by default), a request without it. Nothing was created.",
    examples: [
      example(
        'UNAUTHORIZED',
        'The Authorization header does not carry an active API key of this merchant: send Authorization: Bearer <its current API key>, or no Authorization header for a public cart.',
        [{ path: 'Authorization', message: 'is not an active API key of this merchant (unknown, revoked or rotated out)' }],
      ),
      example('UNAUTHORIZED', 'This merchant requires its API key on create-cart: send Authorization: Bearer <its API key>.', [
        { path: 'Authorization', message: 'this merchant requires its API key on create-cart' },
      ]),
    ],
    challenge: true,
  },
  {
    description:
      'FORBIDDEN: the Authorization header carries an active API key of this merchant whose scope is `read` (orders and events only): create-cart needs a key of scope `full` or `carts`. Nothing was created.',
    examples: [
      example('FORBIDDEN', "This API key's scope is read (read orders and events only); create-cart needs a key of scope full or carts.", [
        { path: 'Authorization', message: 'is a key of scope read; this request needs scope full or carts' },
      ]),
    ],
  },
  {
    description: 'METHOD_NOT_ALLOWED: only POST; see the Allow header.',
    examples: [example('METHOD_NOT_ALLOWED', 'GET is not supported here; use POST.')],
    allow: true,
  },
  {
    description: 'IDEMPOTENCY_CONFLICT: the Idempotency-Key was used with a different body in the last 24 hours.',
    examples: [
      example('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body. Use a new key for a new cart.', [
        { path: IDEMPOTENCY_HEADER, message: 'was used with a different body in the last 24 hours' },
      ]),
    ],
  },
  {
    description: `PAYLOAD_TOO_LARGE: the body exceeds ${LIMITS.bodyBytes} bytes.`,
    examples: [example('PAYLOAD_TOO_LARGE', `The body must be at most ${LIMITS.bodyBytes} bytes.`)],
  },
  {
    description: 'UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.',
    examples: [example('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.')],
  },
  {
    description:
      'UNKNOWN_PLATFORM: the platformUuid names no active merchant of this environment (sandbox and production have different ones). CURRENCY_NOT_SUPPORTED: the payment processor does not charge this currency. AMOUNT_NOT_REPRESENTABLE: it cannot charge this total exactly (a three-decimal total not ending in 0, MGA not in whole ariary); the message gives the nearest totals it can.',
    examples: [
      example('UNKNOWN_PLATFORM', 'No active sandbox merchant has this platformUuid. Check the value you were given for this environment.', [
        { path: 'cartObject.store.platformUuid', message: 'does not name an active merchant' },
      ]),
      example('CURRENCY_NOT_SUPPORTED', 'The payment processor cannot charge KPW. Use one of the currencies GET /v2/public/api/currencies lists.', [
        { path: 'cartObject.cart.currency', message: 'is not a currency the payment processor charges' },
      ]),
      AMOUNT_NOT_REPRESENTABLE_EXAMPLE('cartObject.cart.items'),
    ],
  },
  {
    description: 'RATE_LIMITED: too many requests from this merchant or this address; retry after Retry-After seconds.',
    examples: [example('RATE_LIMITED', 'Too many requests: at most 600 per 60 s. Retry after the delay in Retry-After.')],
    retryAfter: true,
  },
  {
    description: 'INTERNAL_ERROR: our fault; nothing about it is disclosed. Retry later; quote the requestId to support.',
    examples: [example('INTERNAL_ERROR', 'Something went wrong on our side. Retry later; if it persists, contact support with the requestId.')],
  },
  {
    description:
      'SERVICE_UNAVAILABLE: a service we depend on is down. OVERLOADED: we are at capacity and serve the checkouts already open first; new sessions wait. Either way nothing was created; retry after Retry-After seconds (with the same Idempotency-Key).',
    examples: [
      example('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable. Nothing was created; retry after the delay in Retry-After.'),
      example('OVERLOADED', overloaded(2).message),
    ],
    retryAfter: true,
  },
];

/** The languages of the hosted page, as `&lang=` takes them: "Arabic (ar), German (de), …". */
const PAGE_LANGUAGES = LOCALES.map((code) => `${new Intl.DisplayNames([DEFAULT_LOCALE], { type: 'language' }).of(code)} (${code})`).join(', ');

/** `POST /v2/public/api/cart/`: create a checkout session, the one public operation. */
export const CREATE_CART = declareRoute({
  method: 'post',
  path: '/v2/public/api/cart/',
  operation: (settings) => ({
    operationId: 'createCart',
    summary: 'Create a checkout session',
    description: [
      'Creates a cart session and returns its `cartId`. Redirect the customer to',
      `\`${settings.checkoutBaseUrl}/?token=<cartId>\` before \`expiresOn\` (45 minutes). The redirect to`,
      'successUrl is not a payment confirmation: fulfil orders on the webhook only. The trailing slash is optional.',
      `Add \`&lang=<code>\` to choose the page's language: ${PAGE_LANGUAGES}. Without it the page follows the customer's last choice on its language switcher,`,
      "then their browser's Accept-Language, then the language of the cart's `country` (a French cart in French), then English.",
    ].join(' '),
    tags: ['Checkout sessions'],
    // Either no credentials or the merchant's API key: an empty requirement makes it optional.
    security: [{}, ...MERCHANT_SECURITY],
    request: {
      headers: z.object({
        [IDEMPOTENCY_HEADER]: z.string().regex(new RegExp(IDEMPOTENCY_KEY_PATTERN)).optional().meta({
          description:
            'Retry safely: the same key with the same body within 24 hours, from the same caller, returns the first response (same cartId) with `Idempotent-Replayed: true`; with another body, 409. Keys are scoped to the caller: with your API key, to you (from any address); without it, to (platformUuid, client address), so a retry from another address makes a new cart. Nobody else’s key collides with yours.',
          example: '5f0c2a8e-3b9d-4c7a-9e1f-2d3b4c5a6e7f',
        }),
      }),
      body: { required: true, content: { 'application/json': { schema: createCartRequestSchema, example: CREATE_CART_EXAMPLE } } },
    },
    responses: {
      200: {
        description: 'The session was created (or, with a replayed Idempotency-Key, had been).',
        headers: {
          ...requestIdHeader,
          [REPLAYED_HEADER]: {
            description: 'Present (true) when this is the stored response of an earlier request with the same Idempotency-Key.',
            schema: { type: 'string', enum: ['true'] },
          },
        },
        content: { 'application/json': { schema: createCartResponseSchema } },
      },
      ...errorResponses(CREATE_CART_ERRORS),
    },
  }),
});
