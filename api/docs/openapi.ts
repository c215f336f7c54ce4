import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Config } from '../../core/config.js';
import {
  createCartRequestSchema,
  createCartResponseSchema,
  expiredCartSchema,
  LIMITS,
  retriedCartSchema,
  RETRIES,
  type CreateCartRequest,
} from '../../core/checkout/cart-schema.js';
import { ERROR_STATUS, errorBodySchema, type ErrorBody, type ErrorCode } from '../../application/errors.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN } from '../../application/carts/idempotency.js';
import { REPLAYED_HEADER } from '../carts/routes.js';
import { merchantProfileSchema } from '../../core/merchants/merchant-schema.js';
import {
  captureRequestSchema,
  ORDER_LIMITS,
  orderListQuerySchema,
  orderListSchema,
  orderSchema,
  refundRequestSchema,
  refundSchema,
} from '../../core/orders/order-schema.js';
import { SANDBOX_REFUND_DECLINED_AMOUNT } from '../../core/checkout/payment-processors/sandbox.js';
import { CAPTURE_BODY_BYTES, REFUND_BODY_BYTES } from '../merchant/routes.js';
import { ENDPOINT_BODY_BYTES } from '../merchant/webhook-endpoint-routes.js';
import { REPLAY_BODY_BYTES } from '../merchant/event-routes.js';
import { STREAMS_PER_MERCHANT } from '../merchant/event-stream-routes.js';
import {
  createdWebhookEndpointSchema,
  createWebhookEndpointSchema,
  ENDPOINT_LIMITS,
  rotatedSecretSchema,
  updateWebhookEndpointSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '../../core/webhooks/endpoint-schema.js';
import { EVENT_LIMITS, eventListQuerySchema, eventListSchema, replayRequestSchema, replayResponseSchema } from '../../core/webhooks/event-schema.js';
import { CART_EVENT_SCHEMAS, testEventBodySchema, WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT } from '../../core/webhooks/events.js';
import { CART_EVENT_EXAMPLES, EXAMPLE_ITEM, TEST_EVENT_EXAMPLE } from '../../core/webhooks/event-examples.js';
import { DEFAULT_LOCALE, LOCALES } from '../../core/locales.js';
import { eventStreamQuerySchema, lastEventIdSchema } from '../../core/webhooks/event-feed-schema.js';
import {
  createPaymentLinkSchema,
  PAYMENT_LINK_LIMITS,
  paymentLinkListSchema,
  paymentLinkSchema,
  updatePaymentLinkSchema,
} from '../../core/links/payment-link-schema.js';
import { PAYMENT_LINK_PATCH_BYTES } from '../merchant/payment-link-routes.js';

const requestIdHeader = { 'X-Request-Id': { description: 'Identifies this request in our logs; quote it to support.', schema: { type: 'string' as const } } };
const retryAfterHeader = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' as const, minimum: 1 } } };

const example = (code: ErrorCode, message: string, errors: ErrorBody['errors'] = []): ErrorBody => ({
  code,
  message,
  errors,
  requestId: 'req_3f2c9b7e0d3a4c1b8e6f5a4d3c2b1a09',
});

/** A KWD amount Stripe cannot take (three-decimal amounts end in 0), refused at `path`. */
const AMOUNT_NOT_REPRESENTABLE_EXAMPLE = (path: string) =>
  example(
    'AMOUNT_NOT_REPRESENTABLE',
    'The payment processor cannot charge 1005 (minor units of KWD) exactly: KWD amounts must be multiples of 10. Use 1000 or 1010 (KWD 1.000 or KWD 1.010).',
    [{ path, message: 'must be a multiple of 10 (minor units of KWD) for the payment processor to charge it exactly' }],
  );

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

interface DocumentedError {
  description: string;
  examples: ErrorBody[];
  retryAfter?: boolean;
  allow?: boolean;
  challenge?: boolean;
}

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
      example('CURRENCY_NOT_SUPPORTED', 'The payment processor cannot charge KPW. Use one of the currencies docs/api.md lists for it.', [
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
    description: 'SERVICE_UNAVAILABLE: a service we depend on is down. Nothing was created; retry after Retry-After seconds (with the same Idempotency-Key).',
    examples: [example('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable. Nothing was created; retry after the delay in Retry-After.')],
    retryAfter: true,
  },
];

const MERCHANT_UNAUTHORIZED: DocumentedError = {
  description:
    'UNAUTHORIZED: no API key, or not an active key of this environment (unknown, revoked, rotated out, of the other environment or of a deactivated merchant), all alike.',
  examples: [example('UNAUTHORIZED', 'The merchant API needs Authorization: Bearer <your sandbox API key>.')],
  challenge: true,
};
const MERCHANT_INTERNAL: DocumentedError = {
  description: 'INTERNAL_ERROR: our fault; nothing about it is disclosed. Retry later; quote the requestId to support.',
  examples: [example('INTERNAL_ERROR', 'Something went wrong on our side. Retry later; if it persists, contact support with the requestId.')],
};
const MERCHANT_UNAVAILABLE: DocumentedError = {
  description: 'SERVICE_UNAVAILABLE: a service we depend on is down; nothing was changed. Retry after Retry-After seconds.',
  examples: [example('SERVICE_UNAVAILABLE', 'A service we depend on is unavailable. Nothing was created; retry after the delay in Retry-After.')],
  retryAfter: true,
};
const methodNotAllowedError = (allowed: string): DocumentedError => ({
  description: `METHOD_NOT_ALLOWED: only ${allowed}; see the Allow header.`,
  examples: [example('METHOD_NOT_ALLOWED', `DELETE is not supported here; use ${allowed}.`)],
  allow: true,
});
const ORDER_NOT_FOUND: DocumentedError = {
  description: 'NOT_FOUND: no order of yours in this environment has this cartId (another merchant’s cart answers the same: never 403).',
  examples: [
    example(
      'NOT_FOUND',
      'No order of yours in this environment has this cartId. Check the cartId and that the API key is of the environment the cart was created in.',
      [{ path: 'cartId', message: 'q3Vh0Xc2b1TzM9r8L5kA7wYe is not one of your orders in this environment' }],
    ),
  ],
};

const ORDER_LIST_ERRORS: DocumentedError[] = [
  {
    description: 'VALIDATION_ERROR: a query parameter is malformed, unknown, or extraKey and extraValue are not given together.',
    examples: [
      example('VALIDATION_ERROR', 'The request has 1 invalid field.', [
        { path: 'limit', message: `must be a whole number from 1 to ${ORDER_LIMITS.pageSize}` },
      ]),
    ],
  },
  MERCHANT_UNAUTHORIZED,
  methodNotAllowedError('GET'),
  MERCHANT_INTERNAL,
  MERCHANT_UNAVAILABLE,
];

const ORDER_ERRORS: DocumentedError[] = [MERCHANT_UNAUTHORIZED, ORDER_NOT_FOUND, methodNotAllowedError('GET'), MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE];

const REFUND_ERRORS: DocumentedError[] = [
  {
    description: `INVALID_JSON: the body is not JSON. VALIDATION_ERROR: amount not a whole number of minor units greater than 0, reason over ${ORDER_LIMITS.reason} characters, an unknown field, or a malformed Idempotency-Key.`,
    examples: [
      example('INVALID_JSON', 'The body is not valid JSON. Check for trailing commas, unquoted keys or a truncated body.'),
      example('VALIDATION_ERROR', 'The request has 1 invalid field.', [
        { path: 'amount', message: 'must be greater than 0 (minor units, e.g. 1000 for 10.00 EUR)' },
      ]),
    ],
  },
  MERCHANT_UNAUTHORIZED,
  ORDER_NOT_FOUND,
  methodNotAllowedError('POST'),
  {
    description:
      'ORDER_NOT_PAID: the order is not paid (pending, processing, failed, cancelled or abandoned), so there is nothing to refund. IDEMPOTENCY_CONFLICT: the Idempotency-Key was used for another refund request (another order, amount or reason).',
    examples: [
      example('ORDER_NOT_PAID', 'This order is pending, not paid: only a paid order can be refunded. Wait for its order_created webhook before refunding.', [
        { path: 'cartId', message: 'is not a paid order: only paid orders can be refunded' },
      ]),
      example(
        'IDEMPOTENCY_CONFLICT',
        'This Idempotency-Key was already used for another refund request (another order, amount or reason). Use a new key for a new refund.',
        [{ path: IDEMPOTENCY_HEADER, message: 'was used with a different refund request' }],
      ),
    ],
  },
  {
    description: `PAYLOAD_TOO_LARGE: the body exceeds ${REFUND_BODY_BYTES} bytes.`,
    examples: [example('PAYLOAD_TOO_LARGE', `The body must be at most ${REFUND_BODY_BYTES} bytes.`)],
  },
  {
    description: 'UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.',
    examples: [example('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.')],
  },
  {
    description:
      "AMOUNT_EXCEEDS_REFUNDABLE: the amount is more than what remains (the captured amount less the succeeded and pending refunds). AMOUNT_NOT_REPRESENTABLE: the payment processor cannot refund this amount exactly in the order's currency.",
    examples: [
      example('AMOUNT_EXCEEDS_REFUNDABLE', 'At most 498 (minor units of EUR) remains refundable on this order of 4498; ask for 498 or less.', [
        { path: 'amount', message: 'must be at most 498, what remains refundable on this order' },
      ]),
      AMOUNT_NOT_REPRESENTABLE_EXAMPLE('amount'),
    ],
  },
  MERCHANT_INTERNAL,
  {
    ...MERCHANT_UNAVAILABLE,
    description: 'SERVICE_UNAVAILABLE: a service we depend on is down; nothing was reserved. Retry after Retry-After seconds with the same Idempotency-Key.',
  },
];

/** A capture's, void's or expire's Idempotency-Key used for another request. */
const ACTION_KEY_CONFLICT = example(
  'IDEMPOTENCY_CONFLICT',
  'This Idempotency-Key was already used for another request (another order, action or amount). Use a new key for a new request.',
  [{ path: IDEMPOTENCY_HEADER, message: 'was used with a different request' }],
);
const ACTION_KEY_CONFLICT_DESCRIPTION =
  'IDEMPOTENCY_CONFLICT: the Idempotency-Key was used for another request (another order, action or amount) in the last 24 hours.';
/** Capture, void and expire without a body to refuse: a malformed Idempotency-Key is their one 400. */
const MALFORMED_KEY: DocumentedError = {
  description: 'VALIDATION_ERROR: a malformed Idempotency-Key (8 to 255 visible ASCII characters).',
  examples: [
    example('VALIDATION_ERROR', 'The Idempotency-Key header is malformed.', [
      { path: IDEMPOTENCY_HEADER, message: 'must be 8 to 255 visible ASCII characters, e.g. a UUID' },
    ]),
  ],
};
/** The Idempotency-Key of capture, void, expire and retry, and the header of a replayed answer. */
const actionKeyHeaders = (what: string) =>
  z.object({
    [IDEMPOTENCY_HEADER]: z
      .string()
      .regex(new RegExp(IDEMPOTENCY_KEY_PATTERN))
      .optional()
      .meta({
        description: `Retry safely: the same key with the same ${what} within 24 hours returns the first 200 answer, byte for byte, with \`Idempotent-Replayed: true\`; with another request (another order or action${what === 'capture' ? ', or another amount: `{}` and `{"amount": <the authorized total>}` are one request' : ''}), 409 IDEMPOTENCY_CONFLICT. Keys are yours, shared with create-cart's. A 202 or an error is not kept: a retry asks again.`,
        example: '7d2f9a1c-4e3b-4c8d-9a6f-1b2c3d4e5f60',
      }),
  });
const replayedHeader = {
  [REPLAYED_HEADER]: {
    description: 'Present (true) when this is the answer of an earlier request: the same Idempotency-Key, or (capture) the same capture.',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};

const EXPIRE_ERRORS: DocumentedError[] = [
  MALFORMED_KEY,
  MERCHANT_UNAUTHORIZED,
  ORDER_NOT_FOUND,
  methodNotAllowedError('POST'),
  {
    description: `PAYMENT_IN_PROGRESS: the customer pressed Pay and the payment has no outcome yet; wait for the order_created or order_updated webhook. SESSION_ENDED: the session is no longer open (paid, failed, cancelled, abandoned or refunded; with the Idempotency-Key of the expire that ended it, its answer is replayed instead). SESSION_NOT_EXPIRABLE: a session created before this endpoint existed; it ends by itself at its expiresOn. ${ACTION_KEY_CONFLICT_DESCRIPTION}`,
    examples: [
      example(
        'PAYMENT_IN_PROGRESS',
        'The customer has pressed Pay and the payment has no outcome yet, so the session cannot be ended now. Wait for its order_created or order_updated webhook: a failed payment ends the session, a paid one can be refunded.',
        [{ path: 'cartId', message: 'has a payment in progress' }],
      ),
      example('SESSION_ENDED', 'This session has already ended (abandoned); there is nothing to expire.', [
        { path: 'cartId', message: 'is not an open session: it is abandoned' },
      ]),
      example(
        'SESSION_NOT_EXPIRABLE',
        'This session was created before sessions could be expired and cannot be ended early; it ends by itself at its expiresOn.',
        [{ path: 'cartId', message: 'names a session created before the expire endpoint existed' }],
      ),
      ACTION_KEY_CONFLICT,
    ],
  },
  MERCHANT_INTERNAL,
  MERCHANT_UNAVAILABLE,
];
const RETRY_ERRORS: DocumentedError[] = [
  {
    ...MALFORMED_KEY,
    description: `${MALFORMED_KEY.description} In production, also a URL of the retried cart that is no longer on one of your registered domains (create a new cart).`,
  },
  MERCHANT_UNAUTHORIZED,
  ORDER_NOT_FOUND,
  methodNotAllowedError('POST'),
  {
    description: `SESSION_NOT_RETRYABLE: the session is not failed: it is still open (pending, processing: the customer can still pay with it), paid (authorized, paid, refunded) or ended without a payment failure (cancelled, abandoned: create a new cart); or it was opened from a payment link that is closed, expired or used up, whose lineage mints no more sessions (the message names the link). ALREADY_RETRIED: this session was retried already; the message names its retry (a cart is retried once, so an order never has two open sessions). RETRY_LIMIT_REACHED: the retries of the first cart of the chain are used up (cartObject.cart.retries, ${RETRIES.default} when absent; a retry of a retry counts). ${ACTION_KEY_CONFLICT_DESCRIPTION}`,
    examples: [
      example('SESSION_NOT_RETRYABLE', 'This session is paid: it was paid, so there is nothing to retry.', [
        { path: 'cartId', message: 'is paid: only a failed session can be retried' },
      ]),
      example(
        'ALREADY_RETRIED',
        'This session was already retried as Zk4m2Pq9Xw7Ls1Vb3Nc8Rt0y. Send the customer to that session, or retry that one if its payment failed too.',
        [{ path: 'cartId', message: 'was already retried as Zk4m2Pq9Xw7Ls1Vb3Nc8Rt0y' }],
      ),
      example(
        'RETRY_LIMIT_REACHED',
        'This cart has had its 1 retry (cartObject.cart.retries of q3Vh0Xc2b1TzM9r8L5kA7wYe, its first session). For another checkout, create a new cart (POST /v2/public/api/cart/).',
        [{ path: 'cartId', message: 'has no retry left of the 1 its cart allows' }],
      ),
      ACTION_KEY_CONFLICT,
    ],
  },
  MERCHANT_INTERNAL,
  {
    ...MERCHANT_UNAVAILABLE,
    description:
      'SERVICE_UNAVAILABLE: a service we depend on is down; no session was created. Retry after Retry-After seconds (with the same Idempotency-Key).',
  },
];
const bodyErrors = (bytes: number, fields: string, example_: ErrorBody['errors'][number]): DocumentedError[] => [
  {
    description: `INVALID_JSON: the body is not JSON. VALIDATION_ERROR: ${fields}`,
    examples: [
      example('INVALID_JSON', 'The body is not valid JSON. Check for trailing commas, unquoted keys or a truncated body.'),
      example('VALIDATION_ERROR', 'The request has 1 invalid field.', [example_]),
    ],
  },
  { description: `PAYLOAD_TOO_LARGE: the body exceeds ${bytes} bytes.`, examples: [example('PAYLOAD_TOO_LARGE', `The body must be at most ${bytes} bytes.`)] },
  {
    description: 'UNSUPPORTED_MEDIA_TYPE: send Content-Type: application/json.',
    examples: [example('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.')],
  },
];
const ENDPOINT_FIELDS_INVALID =
  'url not an http(s) URL your environment may call (production: https to public addresses), enabledEvents not a list of event names or ["*"] alone, description too long, an unknown field, or (PATCH) no field at all.';
const ENDPOINT_NOT_FOUND: DocumentedError = {
  description: 'NOT_FOUND: no webhook endpoint of yours has this id (another merchant’s answers the same: never 403); a deleted one is gone.',
  examples: [
    example('NOT_FOUND', 'No webhook endpoint of yours has this id. List yours with GET /v2/merchant/webhook-endpoints.', [
      { path: 'id', message: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b is not one of your webhook endpoints' },
    ]),
  ],
};
const ENDPOINT_LIMIT: DocumentedError = {
  description: `ENDPOINT_LIMIT_REACHED: you have ${ENDPOINT_LIMITS.perMerchant} endpoints already.`,
  examples: [
    example(
      'ENDPOINT_LIMIT_REACHED',
      `You have ${ENDPOINT_LIMITS.perMerchant} webhook endpoints, the most allowed. Delete one you no longer use, or widen the enabledEvents of one.`,
    ),
  ],
};
const LAST_ENDPOINT: DocumentedError = {
  description: 'LAST_ENDPOINT: a merchant keeps at least one endpoint; disable it instead.',
  examples: [
    example('LAST_ENDPOINT', 'This is your last webhook endpoint. Disable it (PATCH {"status": "disabled"}) instead, or add another before deleting it.', [
      { path: 'id', message: 'is your only webhook endpoint' },
    ]),
  ],
};
/** Errors of one status as one response (errorResponses keeps one entry per status): descriptions and examples side by side. */
const together = (...entries: DocumentedError[]): DocumentedError => ({
  description: entries.map((e) => e.description).join(' '),
  examples: entries.flatMap((e) => e.examples),
  ...(entries.some((e) => e.retryAfter) ? { retryAfter: true } : {}),
});
const BOUND_BY_OPERATOR: DocumentedError = {
  description:
    'ENDPOINT_DISABLED_BY_OPERATOR: an operator disabled the endpoint, and that binds you until an operator enables it again: its URL is not added again, spelt otherwise or by another host name of the addresses it resolved to when disabled, as a new endpoint or another’s URL; it is not moved, enabled, disabled again (its reason stays the operator’s) nor deleted; nothing is replayed to it. Contact support.',
  examples: [
    example(
      'ENDPOINT_DISABLED_BY_OPERATOR',
      'An operator disabled this webhook endpoint: it cannot be deleted until an operator enables it again. Contact support.',
      [{ path: 'id', message: 'an operator disabled webhook endpoint 0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b; only an operator enables it again' }],
    ),
  ],
};
const MANUAL_SENDS_LIMITED: DocumentedError = {
  description:
    'RATE_LIMITED: you had your test events and replays for the hour to the endpoint’s origin (scheme, host and port of its URL, whichever of your endpoints has it: WEBHOOK_MANUAL_SENDS_PER_HOUR, 30 by default, from the dashboard and the API together); retry after Retry-After seconds.',
  examples: [
    example(
      'RATE_LIMITED',
      'Too many test events and replays to https://shop.example: at most 30 an hour to one origin, from the dashboard and the API together, whichever of your endpoints they go to. Retry after the delay in Retry-After.',
      [{ path: 'endpointId', message: 'its origin https://shop.example has had 30 test events and replays this hour' }],
    ),
  ],
  retryAfter: true,
};
const EVENT_NOT_SUBSCRIBED: DocumentedError = {
  description:
    'EVENT_NOT_SUBSCRIBED: the endpoint’s enabledEvents do not take this event’s type; nothing was sent or counted. The message names both. Replay it to an endpoint that takes it, or add the type to the endpoint’s enabledEvents first.',
  examples: [
    example(
      'EVENT_NOT_SUBSCRIBED',
      'This endpoint does not take order_created events: its enabledEvents are ["order_refunded"]. Replay it to an endpoint that takes order_created, or add order_created to this endpoint\'s enabledEvents first.',
      [{ path: 'endpointId', message: 'takes order_refunded, not order_created' }],
    ),
  ],
};
const EVENT_NOT_FOUND: DocumentedError = {
  description: 'NOT_FOUND: no event of yours has this id, or endpointId names none of your endpoints.',
  examples: [
    example('NOT_FOUND', 'No event of yours has this id. Event ids are the webhook-id header of a delivery, or the id listed by GET /v2/merchant/events.', [
      { path: 'id', message: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f is not one of your events' },
    ]),
  ],
};

const NOT_AUTHORIZED: DocumentedError = {
  description:
    'ORDER_NOT_AUTHORIZED: the order holds no authorization: it was not created with captureMethod manual, is not paid yet, or was already captured, voided, or voided by the hold timer.',
  examples: [
    example(
      'ORDER_NOT_AUTHORIZED',
      'This order is paid, not authorized: only an authorized order can be captured or voided (it was captured, voided, its hold expired, or it is not paid yet).',
      [{ path: 'cartId', message: 'is not an authorized order: only those can be captured or voided' }],
    ),
  ],
};

const CAPTURE_ERRORS: DocumentedError[] = [
  ...bodyErrors(
    CAPTURE_BODY_BYTES,
    'amount not a whole number of minor units greater than 0, an unknown field, or a malformed Idempotency-Key. The body may be {}.',
    {
      path: 'amount',
      message: 'must be greater than 0 (minor units, e.g. 1000 for 10.00 EUR)',
    },
  ),
  MERCHANT_UNAUTHORIZED,
  ORDER_NOT_FOUND,
  methodNotAllowedError('POST'),
  {
    description: `${NOT_AUTHORIZED.description} CAPTURE_ALREADY_DECIDED: this order's capture was already decided for another amount (before this request, or at the same time): an order is captured once; the message and errors[0] say the amount captured, and asking for that amount answers that capture's answer. ${ACTION_KEY_CONFLICT_DESCRIPTION}`,
    examples: [
      ...NOT_AUTHORIZED.examples,
      example(
        'CAPTURE_ALREADY_DECIDED',
        'This order’s capture is already decided: 3000 (minor units of EUR) captured, so a capture of 4000 is refused. An order is captured once; ask for 3000 to get that capture’s answer again, or follow the order for its outcome.',
        [{ path: 'amount', message: 'must be 3000, the amount captured on this order: an order is captured once' }],
      ),
      ACTION_KEY_CONFLICT,
    ],
  },
  {
    description:
      "AMOUNT_EXCEEDS_AUTHORIZED: the amount is more than the authorized amount (the order amount). AMOUNT_NOT_REPRESENTABLE: the payment processor cannot capture this amount exactly in the order's currency.",
    examples: [
      example('AMOUNT_EXCEEDS_AUTHORIZED', 'At most 4498 (minor units of EUR) was authorized on this order; capture 4498 or less.', [
        { path: 'amount', message: 'must be at most 4498, the authorized amount' },
      ]),
      AMOUNT_NOT_REPRESENTABLE_EXAMPLE('amount'),
    ],
  },
  MERCHANT_INTERNAL,
  MERCHANT_UNAVAILABLE,
];

const VOID_ERRORS: DocumentedError[] = [
  MALFORMED_KEY,
  MERCHANT_UNAUTHORIZED,
  ORDER_NOT_FOUND,
  methodNotAllowedError('POST'),
  { description: `${NOT_AUTHORIZED.description} ${ACTION_KEY_CONFLICT_DESCRIPTION}`, examples: [...NOT_AUTHORIZED.examples, ACTION_KEY_CONFLICT] },
  MERCHANT_INTERNAL,
  MERCHANT_UNAVAILABLE,
];

function errorResponses(entries: DocumentedError[]) {
  const responses: Record<string, object> = {};
  for (const entry of entries) {
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

/** The languages of the hosted page, as `&lang=` takes them: "Arabic (ar), German (de), …". */
const PAGE_LANGUAGES = LOCALES.map((code) => `${new Intl.DisplayNames([DEFAULT_LOCALE], { type: 'language' }).of(code)} (${code})`).join(', ');

const TAGS = [
  { name: 'Checkout sessions', description: 'Create the session the customer pays on the hosted page.' },
  { name: 'Merchant API', description: 'Your profile and orders: look them up, refund, capture or void them, and end an open session. With your API key.' },
  {
    name: 'Webhook endpoints',
    description: 'Where your events go, and what became of each: endpoints, their secrets, the events list and replays. With your API key.',
  },
  {
    name: 'Payment links',
    description: 'A cart you sell with a link (social media, an invoice, a QR code): each visit opens a checkout session of its own. With your API key.',
  },
  { name: 'Webhooks', description: 'What we POST to your endpoints, signed (Standard Webhooks): one body per event, in order per cart (docs/webhooks.md).' },
];

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate the requests. */
export function buildOpenApiDocument(config: Pick<Config, 'apiBaseUrl' | 'checkoutBaseUrl' | 'environment'>) {
  const registry = new OpenAPIRegistry();
  const merchantApiKey = registry.registerComponent('securitySchemes', 'merchantApiKey', {
    type: 'http',
    scheme: 'bearer',
    description:
      "The merchant's API key, `sk_<environment>_…`, given once at registration and on each rotation. Required on everything under /v2/merchant/. Optional on create-cart: needed only when the merchant's operator turned on requireApiKeyForCarts; sent there, it must be the merchant's active key (else 401, never a public cart).",
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
      `Add \`&lang=<code>\` to choose the page's language: ${PAGE_LANGUAGES}. Without it the page follows the customer's last choice on its language switcher,`,
      "then their browser's Accept-Language, then the language of the cart's `country` (a French cart in French), then English.",
    ].join(' '),
    tags: ['Checkout sessions'],
    // Either no credentials or the merchant's API key: an empty requirement makes it optional.
    security: [{}, { [merchantApiKey.name]: [] }],
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
  });
  registerMerchantApi(registry, merchantApiKey.name);
  registerWebhooks(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Hosted Checkout API',
      version: '2.0.0',
      contact: { name: 'Hosted Checkout support: quote the X-Request-Id of the request in question' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: `Create checkout sessions for the hosted payment page, then look up and refund your orders, and end a session you can no longer honour. This is the ${config.environment} environment. Create-cart identifies the merchant by \`cartObject.store.platformUuid\`; no Authorization header is needed unless the merchant chose to require its API key on create-cart (then \`Authorization: Bearer <apiKey>\`, else 401); an Authorization header that is sent must carry the merchant's active key, else 401. Everything under \`/v2/merchant/\` needs \`Authorization: Bearer <apiKey>\`. Every error has the same body (\`Error\`).`,
    },
    servers: [{ url: config.apiBaseUrl, description: config.environment }],
    tags: TAGS,
  });
}

const endpointIdParameter = z.object({
  id: z.uuid().meta({ description: 'The endpoint’s id', example: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' }),
});
const eventIdParameter = z.object({
  id: z.string().meta({ description: 'The event’s id (its webhook-id header)', example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
});

const cartIdParameter = z.object({
  cartId: z.string().meta({ description: 'The cartId create-cart returned', example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
});

/** `/v2/merchant/…`: the merchant's own profile, orders, refunds and open sessions, with its API key. */
function registerMerchantApi(registry: OpenAPIRegistry, scheme: string) {
  const security = [{ [scheme]: [] }];
  const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/me',
    operationId: 'getMerchant',
    summary: 'Who this API key belongs to',
    description:
      'The merchant the key belongs to: its platformUuid (for create-cart), name, environment, webhook URL, registered domains and whether create-cart needs the key. Check a key with it before you rely on it.',
    tags: ['Merchant API'],
    security,
    responses: {
      200: { description: 'The merchant the key belongs to.', headers: requestIdHeader, content: json(merchantProfileSchema) },
      ...errorResponses([MERCHANT_UNAUTHORIZED, methodNotAllowedError('GET'), MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/orders',
    operationId: 'listOrders',
    summary: 'List your orders',
    description:
      'Your orders in this environment, newest first. Filters combine; `createdFrom` is inclusive and `createdTo` exclusive. Follow `nextCursor` (with the same filters) until it is null.',
    tags: ['Merchant API'],
    security,
    request: { query: orderListQuerySchema },
    responses: {
      200: { description: 'A page of orders.', headers: requestIdHeader, content: json(orderListSchema) },
      ...errorResponses(ORDER_LIST_ERRORS),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/orders/{cartId}',
    operationId: 'getOrder',
    summary: 'One order in full',
    description: `Its lines, card (brand and last 4 only), refunds, and every webhook event with each delivery attempt (your endpoint's status and the first ${ORDER_LIMITS.responseExcerpt} characters of its answer).`,
    tags: ['Merchant API'],
    security,
    request: { params: cartIdParameter },
    responses: {
      200: { description: 'The order.', headers: requestIdHeader, content: json(orderSchema) },
      ...errorResponses(ORDER_ERRORS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/orders/{cartId}/refunds',
    operationId: 'refundOrder',
    summary: 'Refund all or part of a paid order',
    description: [
      'Reserves the amount at once (concurrent refunds never exceed what was captured), then refunds it at the processor.',
      'The answer waits a few seconds for the outcome: `succeeded`, `failed` (with `failureCode`; the amount is released) or still `pending`',
      '(follow the order, or wait for `order_refunded`, sent once per succeeded refund with `data.refund`).',
      `Sandbox: a refund of exactly ${SANDBOX_REFUND_DECLINED_AMOUNT} fails with \`refund_declined\`.`,
    ].join(' '),
    tags: ['Merchant API'],
    security,
    request: {
      params: cartIdParameter,
      headers: z.object({
        [IDEMPOTENCY_HEADER]: z.string().regex(new RegExp(IDEMPOTENCY_KEY_PATTERN)).optional().meta({
          description:
            'Retry safely: the same key with the same request returns the same refund (as it stands now) with `Idempotent-Replayed: true`; with another request, 409. Keys are kept as long as the refund.',
          example: '1c9d7e0a-5b4f-4e2a-8c3d-7f6e5d4c3b2a',
        }),
      }),
      body: { required: true, content: { 'application/json': { schema: refundRequestSchema, example: { amount: 1000, reason: 'Damaged in transit' } } } },
    },
    responses: {
      201: {
        description: 'The refund, reserved and started (or, with a replayed Idempotency-Key, the earlier one).',
        headers: {
          ...requestIdHeader,
          [REPLAYED_HEADER]: {
            description: 'Present (true) when this is the refund of an earlier request with the same Idempotency-Key.',
            schema: { type: 'string', enum: ['true'] },
          },
        },
        content: json(refundSchema),
      },
      ...errorResponses(REFUND_ERRORS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/carts/{cartId}/expire',
    operationId: 'expireCart',
    summary: 'End an open checkout session now',
    description: [
      'For a merchant that can no longer sell what the cart holds (sold out, order changed). The session becomes `cancelled` at once:',
      'you receive `order_cancelled` with `data.cancelledBy: "merchant"` (a customer who cancels gives `"customer"`), and the hosted page tells',
      'the customer the store closed this checkout, with a link to your `failureUrl`. No body. Refused while a payment is in progress:',
      'its outcome decides the session. Send an Idempotency-Key to retry safely: a repeat answers the first answer, not SESSION_ENDED.',
    ].join(' '),
    tags: ['Merchant API'],
    security,
    request: { params: cartIdParameter, headers: actionKeyHeaders('expire') },
    responses: {
      200: {
        description: 'The session is ended; `order_cancelled` is on its way (or, with a replayed Idempotency-Key, had been).',
        headers: { ...requestIdHeader, ...replayedHeader },
        content: json(expiredCartSchema),
      },
      ...errorResponses(EXPIRE_ERRORS),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/carts/{cartId}/retry',
    operationId: 'retryCart',
    summary: 'Give a failed checkout a second chance',
    description: [
      'For a session whose payment failed (a declined card): a new session for the same store and cart, with a new cartId and a full lifetime from now',
      '(the cart’s sessionMinutes, 45 minutes when absent). Redirect the customer to `url`, as after create-cart. The failed session stays `failed`;',
      'the new one’s order and every event of it carry `retryOf` (the failed cartId) and the failed cart’s `createdWith`, so your webhook handler finds its order.',
      `A cart allows \`cartObject.cart.retries\` retries (0 to ${RETRIES.max}, ${RETRIES.default} when absent), counted over the retries of its retries, and each session is retried at most once.`,
      'No body. Send an Idempotency-Key to retry safely: a repeat answers the first answer (the same new cartId), not ALREADY_RETRIED.',
    ].join(' '),
    tags: ['Merchant API'],
    security,
    request: { params: cartIdParameter, headers: actionKeyHeaders('retry') },
    responses: {
      200: {
        description: 'The new session (or, with a replayed Idempotency-Key, the one the first request made).',
        headers: { ...requestIdHeader, ...replayedHeader },
        content: json(retriedCartSchema),
      },
      ...errorResponses(RETRY_ERRORS),
    },
  });
  const holdAnswers = (what: string) => ({
    200: { description: `The order, ${what}.`, headers: { ...requestIdHeader, ...replayedHeader }, content: json(orderSchema) },
    202: {
      description: 'The order, still `authorized`: the processor has not answered yet; the outcome follows (its webhook, or the order).',
      headers: requestIdHeader,
      content: json(orderSchema),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/orders/{cartId}/capture',
    operationId: 'captureOrder',
    summary: 'Capture all or part of an authorized order',
    description: [
      'For an order created with `captureMethod: "manual"`, while it is `authorized`: captures `amount` (all of it when absent) and releases the rest of the hold.',
      'The order becomes `paid` with `capturedAmount`, and `order_updated` (status `paid`, `data.capturedAmount`) is sent. Refunds are then held to the captured amount.',
      'A capture, a void and the hold timer (AUTHORIZATION_HOLD_DAYS) race safely: the first wins, the others are refused with ORDER_NOT_AUTHORIZED.',
      'A capture is decided once, for one amount, and is idempotent by request: the same capture again (the same amount; `{}` is the authorized total) answers what the first answered: its 200, the same body',
      '(kept 24 hours; after that, the order as it stands), with `Idempotent-Replayed: true`; a capture of another amount, asked before, at the same time or after, is refused with 409 CAPTURE_ALREADY_DECIDED, which says the amount captured.',
      'An Idempotency-Key makes any repeat safe, as on create-cart.',
    ].join(' '),
    tags: ['Merchant API'],
    security,
    request: {
      params: cartIdParameter,
      headers: actionKeyHeaders('capture'),
      body: { required: true, content: { 'application/json': { schema: captureRequestSchema, example: { amount: 3000 } } } },
    },
    responses: { ...holdAnswers('captured (`paid`)'), ...errorResponses(CAPTURE_ERRORS) },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/orders/{cartId}/void',
    operationId: 'voidOrder',
    summary: 'Void an authorized order',
    description:
      'Releases the hold of an `authorized` order (captureMethod manual): the order becomes `cancelled` and `order_cancelled` is sent. No body. Races with a capture and the hold timer as capture does. Send an Idempotency-Key to retry safely: a repeat answers the first answer, not ORDER_NOT_AUTHORIZED.',
    tags: ['Merchant API'],
    security,
    request: { params: cartIdParameter, headers: actionKeyHeaders('void') },
    responses: { ...holdAnswers('voided (`cancelled`)'), ...errorResponses(VOID_ERRORS) },
  });
  registerWebhookEndpointApi(registry, security);
  registerPaymentLinkApi(registry, security);
}

const paymentLinkIdParameter = z.object({
  id: z.string().meta({ description: 'The link’s id', example: 'pl_3Jd8s0aKq1VbT7wYxZ2mNg' }),
});

/** `/v2/merchant/payment-links…`: carts sold with a link (docs/payment-links.md). */
function registerPaymentLinkApi(registry: OpenAPIRegistry, security: Array<Record<string, string[]>>) {
  const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
  const tags = ['Payment links'];
  const common = [MERCHANT_UNAUTHORIZED, MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE];
  const notFound: DocumentedError = {
    description: 'NOT_FOUND: no payment link of yours in this environment has this id (another merchant’s answers the same: never 403).',
    examples: [
      example('NOT_FOUND', 'No payment link of yours in this environment has this id. List yours with GET /v2/merchant/payment-links.', [
        { path: 'id', message: 'pl_3Jd8s0aKq1VbT7wYxZ2mNg is not one of your payment links' },
      ]),
    ],
  };
  const createBodyErrors = bodyErrors(
    PAYMENT_LINK_LIMITS.bodyBytes,
    'a cartObject field as create-cart refuses it (production: URLs off your verified domains), a platformUuid not yours, maxUses not a whole number from 1, expiresAt not a future ISO 8601 date-time, or an unknown field.',
    { path: 'maxUses', message: 'must be at least 1 (paid sessions); leave it out for no limit' },
  );
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/payment-links',
    operationId: 'listPaymentLinks',
    summary: 'List your payment links',
    description: `Your ${PAYMENT_LINK_LIMITS.listSize} newest links, newest first, each with its visits (sessions opened) and paid sessions.`,
    tags,
    security,
    responses: {
      200: { description: 'Your links.', headers: requestIdHeader, content: json(paymentLinkListSchema) },
      ...errorResponses([...common, methodNotAllowedError('GET, POST')]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/payment-links',
    operationId: 'createPaymentLink',
    summary: 'Create a payment link',
    description: [
      'Keeps `cartObject`, checked exactly as create-cart checks it, and answers the link’s `url`, `{CHECKOUT_BASE_URL}/l/<id>`. Each visit of the url',
      'opens a new checkout session of this cart (a new cartId, the usual lifetime) and sends the customer to it; its order and every event',
      'say `paymentLinkId` and `createdWith: "api_key"`. From `expiresAt`, after `maxUses` paid sessions, or once closed, visits answer 410.',
    ].join(' '),
    tags,
    security,
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: createPaymentLinkSchema,
            example: { cartObject: CREATE_CART_EXAMPLE.cartObject, maxUses: 1, expiresAt: '2030-01-01T12:00:00Z' },
          },
        },
      },
    },
    responses: {
      201: { description: 'The link.', headers: requestIdHeader, content: json(paymentLinkSchema) },
      ...errorResponses([
        ...createBodyErrors,
        ...common,
        {
          description: 'CURRENCY_NOT_SUPPORTED or AMOUNT_NOT_REPRESENTABLE: the payment processor cannot charge this cart, as create-cart would say.',
          examples: [AMOUNT_NOT_REPRESENTABLE_EXAMPLE('cartObject.cart.items')],
        },
      ]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/payment-links/{id}',
    operationId: 'getPaymentLink',
    summary: 'One payment link',
    description: 'The link as created, whether it is open, and its visits and paid sessions.',
    tags,
    security,
    request: { params: paymentLinkIdParameter },
    responses: {
      200: { description: 'The link.', headers: requestIdHeader, content: json(paymentLinkSchema) },
      ...errorResponses([...common, notFound, methodNotAllowedError('GET, PATCH')]),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/v2/merchant/payment-links/{id}',
    operationId: 'closePaymentLink',
    summary: 'Close a payment link',
    description:
      'With `{"active": false}`: new visits answer 410 from now on, and the sessions already opened from it (their retries and recoveries too) can no longer be paid: Pay is refused on their page. A payment already submitted finishes. Closing a closed link changes nothing.',
    tags,
    security,
    request: {
      params: paymentLinkIdParameter,
      body: { required: true, content: { 'application/json': { schema: updatePaymentLinkSchema, example: { active: false } } } },
    },
    responses: {
      200: { description: 'The link, closed.', headers: requestIdHeader, content: json(paymentLinkSchema) },
      ...errorResponses([
        ...bodyErrors(PAYMENT_LINK_PATCH_BYTES, 'active is not false, or an unknown field.', {
          path: 'active',
          message: 'must be false: a closed link stays closed; create a new link to sell again',
        }),
        ...common,
        notFound,
      ]),
    },
  });
}

/** `/v2/merchant/webhook-endpoints…` and `/v2/merchant/events…`: where events go, and what became of them. */
function registerWebhookEndpointApi(registry: OpenAPIRegistry, security: Array<Record<string, string[]>>) {
  const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
  const tags = ['Webhook endpoints'];
  const common = [MERCHANT_UNAUTHORIZED, MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE];
  const endpointBodyErrors = bodyErrors(ENDPOINT_BODY_BYTES, ENDPOINT_FIELDS_INVALID, {
    path: 'enabledEvents[0]',
    message: 'must be one of order_created, order_updated, order_cancelled, order_refunded, order_abandoned, or "*" alone for every event',
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List your webhook endpoints',
    description: `Up to ${ENDPOINT_LIMITS.perMerchant}, oldest first. The first is the one your webhook URL setting (dashboard, operators) changes.`,
    tags,
    security,
    responses: {
      200: { description: 'Your endpoints.', headers: requestIdHeader, content: json(webhookEndpointListSchema) },
      ...errorResponses([...common, methodNotAllowedError('GET, POST')]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Add a webhook endpoint',
    description: [
      'The endpoint receives the events in `enabledEvents` (or every event with `["*"]`), each cart’s in order, signed with its own secret,',
      'returned this once as `secret`. Events recorded from now on are sent to it; replay older ones with POST /v2/merchant/events/{id}/replay.',
    ].join(' '),
    tags,
    security,
    request: {
      body: {
        required: true,
        content: {
          'application/json': {
            schema: createWebhookEndpointSchema,
            example: { url: 'https://accounting.example/hooks', enabledEvents: ['order_refunded'], description: 'Accounting' },
          },
        },
      },
    },
    responses: {
      201: { description: 'The endpoint, with its secret.', headers: requestIdHeader, content: json(createdWebhookEndpointSchema) },
      ...errorResponses([...endpointBodyErrors, ...common, together(ENDPOINT_LIMIT, BOUND_BY_OPERATOR)]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/webhook-endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'One webhook endpoint',
    description: 'Its URL, enabledEvents, description and status (with why it was disabled); never its secret.',
    tags,
    security,
    request: { params: endpointIdParameter },
    responses: {
      200: { description: 'The endpoint (never its secret).', headers: requestIdHeader, content: json(webhookEndpointSchema) },
      ...errorResponses([...common, ENDPOINT_NOT_FOUND, methodNotAllowedError('GET, PATCH, DELETE')]),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/v2/merchant/webhook-endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint',
    description:
      'Any of url, enabledEvents, description and status. A new URL enables the endpoint again; `status: "disabled"` stops its deliveries (kept as skipped, replayable) and `"enabled"` starts them again. An endpoint an operator disabled keeps its status, reason and URL until an operator enables it (ENDPOINT_DISABLED_BY_OPERATOR), and no endpoint takes its URL; its enabledEvents and description are still yours.',
    tags,
    security,
    request: {
      params: endpointIdParameter,
      body: { required: true, content: { 'application/json': { schema: updateWebhookEndpointSchema, example: { enabledEvents: ['*'] } } } },
    },
    responses: {
      200: { description: 'The endpoint as changed.', headers: requestIdHeader, content: json(webhookEndpointSchema) },
      ...errorResponses([...endpointBodyErrors, ...common, ENDPOINT_NOT_FOUND, BOUND_BY_OPERATOR]),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/v2/merchant/webhook-endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description:
      'Nothing more is sent to it, retries included. Your last endpoint cannot be deleted: disable it instead. Nor one an operator disabled, until an operator enables it again.',
    tags,
    security,
    request: { params: endpointIdParameter },
    responses: {
      204: { description: 'Deleted.', headers: requestIdHeader },
      ...errorResponses([...common, ENDPOINT_NOT_FOUND, together(LAST_ENDPOINT, BOUND_BY_OPERATOR)]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/webhook-endpoints/{id}/rotate-secret',
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate an endpoint’s signing secret',
    description:
      'A new secret, returned this once; the old ones keep signing beside it until previousSecretsExpireAt, so you can deploy the new one without rejecting a delivery.',
    tags,
    security,
    request: { params: endpointIdParameter },
    responses: {
      200: { description: 'The new secret.', headers: requestIdHeader, content: json(rotatedSecretSchema) },
      ...errorResponses([...common, ENDPOINT_NOT_FOUND, methodNotAllowedError('POST')]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/events',
    operationId: 'listEvents',
    summary: 'List your events',
    description: `Every event of your orders, newest first, with where it stands at each endpoint that wanted it. Filters combine; \`delivered=false&endpointId=…\` lists what that endpoint wanted and has not received. Follow \`nextCursor\` (with the same filters) until it is null; ${EVENT_LIMITS.defaultPageSize} per page unless \`limit\` says otherwise.`,
    tags,
    security,
    request: { query: eventListQuerySchema },
    responses: {
      200: { description: 'A page of events.', headers: requestIdHeader, content: json(eventListSchema) },
      ...errorResponses([
        {
          description: 'VALIDATION_ERROR: a query parameter is malformed or unknown, or delivered comes without endpointId.',
          examples: [
            example('VALIDATION_ERROR', 'The request has 1 invalid field.', [
              { path: 'endpointId', message: 'is required with delivered (the endpoint whose deliveries to look at)' },
            ]),
          ],
        },
        ...common,
        methodNotAllowedError('GET'),
      ]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v2/merchant/events/stream',
    operationId: 'streamEvents',
    summary: 'Follow your events as they happen',
    description: [
      'Server-sent events (text/event-stream), open until you close it: first a `ready` message, then one message per event recorded from then on, oldest first,',
      'its `event` the event name, its `data` the body every endpoint receives, byte for byte, and its `id` its position. Reconnect with the last `id` received as',
      '`Last-Event-ID` (EventSource does) and the stream resumes right after it: nothing missed, nothing twice. A `: heartbeat` comment comes at least every 15 s. The stream ends within 5 s of its key being rotated or revoked.',
      'Nothing is delivered or signed: `npm run listen` (docs/webhooks.md) forwards each event, signed with a secret of its own, to your machine.',
    ].join(' '),
    tags,
    security,
    request: { query: eventStreamQuerySchema, headers: z.object({ 'Last-Event-ID': lastEventIdSchema }) },
    responses: {
      200: {
        description: 'The stream.',
        headers: requestIdHeader,
        content: {
          'text/event-stream': {
            schema: { type: 'string' },
            example:
              'event: ready\nid: ZjEuMTc5NTMwMzE2NzE3OTIwNC4\ndata: {"types":null}\n\nevent: order_created\nid: ZjEuMTc5NTMwMzE2OTIwMDAwMC5ldnRfMGExYjJjM2Q0ZTVm\ndata: {"id":"evt_0a1b2c3d4e5f","event":"order_created",…}\n\n',
          },
        },
      },
      ...errorResponses([
        {
          description: 'VALIDATION_ERROR: types names something that is not an event, an unknown query parameter, or a Last-Event-ID this stream did not send.',
          examples: [
            example('VALIDATION_ERROR', 'The request has 1 invalid field.', [
              {
                path: 'types',
                message:
                  '"order_paid" is not an event name: must be a comma-separated list of order_created, order_updated, order_cancelled, order_refunded, order_abandoned',
              },
            ]),
          ],
        },
        {
          description: `RATE_LIMITED: this merchant already holds ${STREAMS_PER_MERCHANT} open streams on this API; close one and retry after Retry-After seconds.`,
          examples: [
            example(
              'RATE_LIMITED',
              `Too many open event streams: at most ${STREAMS_PER_MERCHANT} at once per merchant. Close one (or wait for one just closed to end), then retry after the delay in Retry-After.`,
            ),
          ],
          retryAfter: true,
        },
        ...common,
        methodNotAllowedError('GET'),
      ]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v2/merchant/events/{id}/replay',
    operationId: 'replayEvent',
    summary: 'Send an event again to one endpoint',
    description:
      'Same id and body, a fresh timestamp and signature. One attempt, made during this request (within WEBHOOK_TIMEOUT_MS), and the answer gives its outcome (`sent`); unless an earlier event of the order is still pending at that endpoint: then the replay waits behind it and goes out after it (`queued`, with `queuedBehind`), or a replay of this event already waits there (`already_queued`). A failed replay is not retried (it shows in the event’s deliveries; replay it again). Only to an endpoint whose enabledEvents take the event’s type (EVENT_NOT_SUBSCRIBED). Counted with the dashboard’s test events and replays to that endpoint’s origin (scheme, host and port, whichever of your endpoints has it), at most WEBHOOK_MANUAL_SENDS_PER_HOUR (30) an hour. Refused for an endpoint an operator disabled.',
    tags,
    security,
    request: {
      params: eventIdParameter,
      body: {
        required: true,
        content: { 'application/json': { schema: replayRequestSchema, example: { endpointId: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b' } } },
      },
    },
    responses: {
      200: {
        description: 'What the replay did: sent at once, with the attempt’s outcome, or queued behind an earlier pending event of the order.',
        headers: requestIdHeader,
        content: {
          'application/json': {
            schema: replayResponseSchema,
            examples: {
              sent: {
                summary: 'Sent at once',
                value: {
                  eventId: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f',
                  cartId: 'q3Vh0Xc2b1TzM9r8L5kA7wYe',
                  deliveries: [
                    {
                      endpointId: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b',
                      result: 'sent',
                      attempt: { responseStatus: 200, error: null, durationMs: 42 },
                      message: 'Sent: 200 in 42 ms',
                    },
                  ],
                },
              },
              queued: {
                summary: 'Behind an earlier event still pending',
                value: {
                  eventId: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f',
                  cartId: 'q3Vh0Xc2b1TzM9r8L5kA7wYe',
                  deliveries: [
                    {
                      endpointId: '0b6f4c1e-8d2a-4f3b-9c7e-5a1d2e3f4a5b',
                      result: 'queued',
                      queuedBehind: 'evt_0a1b2c3d4e5f6a7b8c9d0e1e',
                      message: 'Queued behind evt_0a1b2c3d4e5f6a7b8c9d0e1e',
                    },
                  ],
                },
              },
            },
          },
        },
      },
      ...errorResponses([
        ...bodyErrors(REPLAY_BODY_BYTES, 'endpointId missing or not an id, or an unknown field.', { path: 'endpointId', message: 'is required' }),
        ...common,
        EVENT_NOT_FOUND,
        BOUND_BY_OPERATOR,
        EVENT_NOT_SUBSCRIBED,
        MANUAL_SENDS_LIMITED,
        methodNotAllowedError('POST'),
      ]),
    },
  });
}

/** The headers of every delivery (core/webhooks/signing.ts webhookHeaders); the timestamp and signature are fresh per attempt. */
const deliveryHeaders = z.object({
  'webhook-id': z.string().meta({ description: 'The event’s id, the same on every retry and replay: dedupe on it', example: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f' }),
  'webhook-timestamp': z.string().regex(/^\d+$/).meta({ description: 'Unix seconds of this attempt; reject beyond ±5 minutes', example: '1893499200' }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part of your secret after `whsec_`; several, space-separated, while a rotated secret overlaps',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
  'X-Client-Signature': z.string().meta({ description: 'The same as webhook-signature', example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' }),
  'X-Client-Event': z.enum([...WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT]).meta({ description: 'The body’s event' }),
  'X-Client-Delivery-Attempt': z.string().regex(/^\d+$/).meta({ description: 'Counts the attempts of this delivery, from 1', example: '1' }),
});

const DELIVERY_ANSWERS = {
  '2XX': {
    description:
      'Received: any 2xx within WEBHOOK_TIMEOUT_MS (15 s) ends the delivery. Answer first, then work; anything else, a redirect or no answer is retried on the schedule of docs/webhooks.md.',
  },
  410: { description: 'Gone: the endpoint is disabled and its events are kept as skipped, replayable once you enable it again.' },
};

/** `webhooks`: each event we POST to your endpoints, with its headers and the answer we expect. */
function registerWebhooks(registry: OpenAPIRegistry) {
  for (const name of WEBHOOK_EVENT_NAMES) {
    const schema = CART_EVENT_SCHEMAS[name];
    registry.registerWebhook({
      method: 'post',
      path: name,
      operationId: `${name.replace(/_(.)/g, (_, c: string) => c.toUpperCase())}Webhook`,
      summary: `The ${name} event`,
      description: schema.description ?? name,
      tags: ['Webhooks'],
      // Signed, not authenticated by a scheme of ours: the receiver checks the signature headers.
      security: [],
      request: {
        headers: deliveryHeaders,
        body: { required: true, content: { 'application/json': { schema, example: CART_EVENT_EXAMPLES[name] } } },
      },
      responses: DELIVERY_ANSWERS,
    });
  }
  registry.registerWebhook({
    method: 'post',
    path: WEBHOOK_TEST_EVENT,
    operationId: 'webhookTestWebhook',
    summary: 'The test event',
    description: testEventBodySchema.description ?? WEBHOOK_TEST_EVENT,
    tags: ['Webhooks'],
    security: [],
    request: {
      headers: deliveryHeaders,
      body: { required: true, content: { 'application/json': { schema: testEventBodySchema, example: TEST_EVENT_EXAMPLE } } },
    },
    responses: { '2XX': { description: 'Your verification works. The answer is shown to you in the dashboard; nothing is retried.' } },
  });
}
