import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import { createCartRequestSchema, createCartResponseSchema, LIMITS, type CreateCartRequest } from '../../core/checkout/cart-schema.js';
import { ERROR_STATUS, errorBodySchema, type ErrorBody, type ErrorCode } from '../errors.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN } from '../carts/idempotency.js';
import { REPLAYED_HEADER } from '../carts/routes.js';

const requestIdHeader = { 'X-Request-Id': { description: 'Identifies this request in our logs; quote it to support.', schema: { type: 'string' as const } } };
const retryAfterHeader = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' as const, minimum: 1 } } };

const example = (code: ErrorCode, message: string, errors: ErrorBody['errors'] = []): ErrorBody => ({
  code,
  message,
  errors,
  requestId: 'req_3f2c9b7e0d3a4c1b8e6f5a4d3c2b1a09',
});

/** The platformUuid of the documented example; a sandbox with a merchant of this id accepts the example as written. */
export const EXAMPLE_PLATFORM_UUID = '8f5e3c2a-6a7b-4d0e-9f21-3b4c5d6e7f80';

/** The documented request, accepted exactly as written (test/integration/openapi-contract.test.ts sends it). */
export const CREATE_CART_EXAMPLE: CreateCartRequest = {
  cartObject: {
    store: { platformUuid: EXAMPLE_PLATFORM_UUID, name: 'Demo Store', url: 'https://store.example', logo: 'https://store.example/logo.png' },
    cart: {
      currency: 'EUR',
      country: 'FR',
      items: [
        {
          title: 'T-shirt',
          description: 'Organic cotton',
          price: 1999,
          quantity: 2,
          url: 'https://store.example/products/t-shirt',
          image: 'https://store.example/products/t-shirt.png',
          zeroPay: false,
          sku: 'TS-ORG-M-BLU',
          variantOptions: ['Size : M', 'Color : Blue'],
        },
      ],
      extra: { orderRef: 'order-42' },
      merchantUrls: { successUrl: 'https://store.example/checkout/success', failureUrl: 'https://store.example/checkout/failure' },
    },
  },
};

/** Every error the create-cart operation can answer, grouped by status, each with an example. */
const CREATE_CART_ERRORS: Array<{ description: string; examples: ErrorBody[]; retryAfter?: boolean; allow?: boolean; challenge?: boolean }> = [
  {
    description:
      "INVALID_JSON: the body is not JSON. VALIDATION_ERROR: one entry per bad field, by JSON path (also for a malformed Idempotency-Key). In production also when the store URL, logo or a return URL is not on the merchant's registered domains (every cart, while it has none), or when any URL names a loopback host.",
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
      "UNAUTHORIZED: this merchant requires its API key on create-cart (an operator setting, off by default) and the request did not carry Authorization: Bearer <that merchant's API key> (none, another merchant's, or a revoked or rotated-out one). Nothing was created.",
    examples: [
      example('UNAUTHORIZED', 'This merchant requires its API key on create-cart: send Authorization: Bearer <its API key>.', [
        { path: 'Authorization', message: 'this merchant requires its API key on create-cart' },
      ]),
    ],
    challenge: true,
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
    description: 'UNKNOWN_PLATFORM: the platformUuid names no active merchant of this environment (sandbox and production have different ones).',
    examples: [
      example('UNKNOWN_PLATFORM', 'No active sandbox merchant has this platformUuid. Check the value you were given for this environment.', [
        { path: 'cartObject.store.platformUuid', message: 'does not name an active merchant' },
      ]),
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
    description: 'SERVICE_UNAVAILABLE: a service we depend on is down. Nothing was created; retry after Retry-After seconds (with the same Idempotency-Key).',
    examples: [example('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable. Nothing was created; retry after the delay in Retry-After.')],
    retryAfter: true,
  },
];

function errorResponses() {
  const responses: Record<string, object> = {};
  for (const entry of CREATE_CART_ERRORS) {
    const status = ERROR_STATUS[entry.examples[0]!.code];
    responses[String(status)] = {
      description: entry.description,
      headers: {
        ...requestIdHeader,
        ...(entry.retryAfter ? retryAfterHeader : {}),
        ...(entry.allow ? { Allow: { schema: { type: 'string' }, description: 'The supported methods' } } : {}),
        ...(entry.challenge ? { 'WWW-Authenticate': { schema: { type: 'string', enum: ['Bearer realm="merchant"'] }, description: 'The scheme to use' } } : {}),
      },
      content: {
        'application/json': {
          schema: errorBodySchema,
          examples: Object.fromEntries(
            entry.examples.map((e, i) => [i === entry.examples.findIndex((x) => x.code === e.code) ? e.code : `${e.code}_${i}`, { value: e }]),
          ),
        },
      },
    };
  }
  return responses;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate the requests. */
export function buildOpenApiDocument(config: Pick<Config, 'apiBaseUrl' | 'checkoutBaseUrl' | 'environment'>) {
  const registry = new OpenAPIRegistry();
  const merchantApiKey = registry.registerComponent('securitySchemes', 'merchantApiKey', {
    type: 'http',
    scheme: 'bearer',
    description:
      "The merchant's API key, `sk_<environment>_…`, given once at registration and on each rotation. Optional on create-cart: needed only when the merchant's operator turned on requireApiKeyForCarts.",
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/public/api/cart/',
    operationId: 'createCart',
    summary: 'Create a checkout session',
    description: [
      'Creates a cart session and returns its `cartId`. Redirect the customer to',
      `\`${config.checkoutBaseUrl}/?token=<cartId>\` before \`expiresOn\` (45 minutes). The redirect to`,
      'successUrl is not a payment confirmation: fulfil orders on the webhook only. The trailing slash is optional.',
      "Add `&lang=ar` (or `&lang=en`) to choose the page's language; without it the customer's browser language is used, English by default.",
    ].join(' '),
    // Either no credentials or the merchant's API key: an empty requirement makes it optional.
    security: [{}, { [merchantApiKey.name]: [] }],
    request: {
      headers: z.object({
        [IDEMPOTENCY_HEADER]: z.string().regex(new RegExp(IDEMPOTENCY_KEY_PATTERN)).optional().meta({
          description:
            'Retry safely: the same key with the same body within 24 hours returns the first response (same cartId) with `Idempotent-Replayed: true`; with another body, 409.',
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
      ...errorResponses(),
    },
  });
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Hosted Checkout API',
      version: '2.0.0',
      description: `Create checkout sessions for the hosted payment page. This is the ${config.environment} environment. The merchant is identified by \`cartObject.store.platformUuid\`; no Authorization header is needed unless the merchant chose to require its API key on create-cart (then \`Authorization: Bearer <apiKey>\`, else 401). Every error has the same body (\`Error\`).`,
    },
    servers: [{ url: config.apiBaseUrl, description: config.environment }],
  });
}
