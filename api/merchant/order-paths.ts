import { z } from 'zod';
import { expiredCartSchema, retriedCartSchema, RETRIES } from '../../core/checkout/cart-schema.js';
import { SANDBOX_REFUND_DECLINED_AMOUNT } from '../../core/checkout/payment-processors/sandbox.js';
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
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, REPLAYED_HEADER } from '../carts/idempotency.js';
import {
  AMOUNT_NOT_REPRESENTABLE_EXAMPLE,
  bodyErrors,
  errorResponses,
  example,
  json,
  MERCHANT_INTERNAL,
  MERCHANT_SECURITY,
  MERCHANT_UNAUTHORIZED,
  MERCHANT_UNAVAILABLE,
  methodNotAllowedError,
  requestIdHeader,
  type DocumentedError,
} from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';

/**
 * The routes ./routes.ts serves, declared once: the merchant's profile, orders, refunds, captures and
 * voids, and its open sessions' expire and retry. api/docs/openapi.ts documents them from here.
 */

/** A refund body is two fields: anything near this size is not one. */
export const REFUND_BODY_BYTES = 16 * 1024;
/** A capture's body is one optional field. */
export const CAPTURE_BODY_BYTES = 1024;

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
    description: `SESSION_NOT_RETRYABLE: the session is not failed: it is still open (pending, processing: the customer can still pay with it), paid (authorized, paid, refunded) or ended without a payment failure (cancelled, abandoned: create a new cart). ALREADY_RETRIED: this session was retried already; the message names its retry (a cart is retried once, so an order never has two open sessions). RETRY_LIMIT_REACHED: the retries of the first cart of the chain are used up (cartObject.cart.retries, ${RETRIES.default} when absent; a retry of a retry counts). ${ACTION_KEY_CONFLICT_DESCRIPTION}`,
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

const cartIdParameter = z.object({
  cartId: z.string().meta({ description: 'The cartId create-cart returned', example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
});

/** A capture's or void's answers: 200 once the processor answered, 202 while it works on it. */
const holdAnswers = (what: string) => ({
  200: { description: `The order, ${what}.`, headers: { ...requestIdHeader, ...replayedHeader }, content: json(orderSchema) },
  202: {
    description: 'The order, still `authorized`: the processor has not answered yet; the outcome follows (its webhook, or the order).',
    headers: requestIdHeader,
    content: json(orderSchema),
  },
});

export const GET_MERCHANT = declareRoute({
  method: 'get',
  path: '/v2/merchant/me',
  operation: {
    operationId: 'getMerchant',
    summary: 'Who this API key belongs to',
    description:
      'The merchant the key belongs to: its platformUuid (for create-cart), name, environment, webhook URL, registered domains and whether create-cart needs the key. Check a key with it before you rely on it.',
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
    responses: {
      200: { description: 'The merchant the key belongs to.', headers: requestIdHeader, content: json(merchantProfileSchema) },
      ...errorResponses([MERCHANT_UNAUTHORIZED, methodNotAllowedError('GET'), MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE]),
    },
  },
});

export const LIST_ORDERS = declareRoute({
  method: 'get',
  path: '/v2/merchant/orders',
  operation: {
    operationId: 'listOrders',
    summary: 'List your orders',
    description:
      'Your orders in this environment, newest first. Filters combine; `createdFrom` is inclusive and `createdTo` exclusive. Follow `nextCursor` (with the same filters) until it is null.',
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
    request: { query: orderListQuerySchema },
    responses: {
      200: { description: 'A page of orders.', headers: requestIdHeader, content: json(orderListSchema) },
      ...errorResponses(ORDER_LIST_ERRORS),
    },
  },
});

export const GET_ORDER = declareRoute({
  method: 'get',
  path: '/v2/merchant/orders/{cartId}',
  operation: {
    operationId: 'getOrder',
    summary: 'One order in full',
    description: `Its lines, card (brand and last 4 only), refunds, and every webhook event with each delivery attempt (your endpoint's status and the first ${ORDER_LIMITS.responseExcerpt} characters of its answer).`,
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter },
    responses: {
      200: { description: 'The order.', headers: requestIdHeader, content: json(orderSchema) },
      ...errorResponses(ORDER_ERRORS),
    },
  },
});

export const REFUND_ORDER = declareRoute({
  method: 'post',
  path: '/v2/merchant/orders/{cartId}/refunds',
  operation: {
    operationId: 'refundOrder',
    summary: 'Refund all or part of a paid order',
    description: [
      'Reserves the amount at once (concurrent refunds never exceed what was captured), then refunds it at the processor.',
      'The answer waits a few seconds for the outcome: `succeeded`, `failed` (with `failureCode`; the amount is released) or still `pending`',
      '(follow the order, or wait for `order_refunded`, sent once per succeeded refund with `data.refund`).',
      `Sandbox: a refund of exactly ${SANDBOX_REFUND_DECLINED_AMOUNT} fails with \`refund_declined\`.`,
    ].join(' '),
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
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
  },
});

export const EXPIRE_CART = declareRoute({
  method: 'post',
  path: '/v2/merchant/carts/{cartId}/expire',
  operation: {
    operationId: 'expireCart',
    summary: 'End an open checkout session now',
    description: [
      'For a merchant that can no longer sell what the cart holds (sold out, order changed). The session becomes `cancelled` at once:',
      'you receive `order_cancelled` with `data.cancelledBy: "merchant"` (a customer who cancels gives `"customer"`), and the hosted page tells',
      'the customer the store closed this checkout, with a link to your `failureUrl`. No body. Refused while a payment is in progress:',
      'its outcome decides the session. Send an Idempotency-Key to retry safely: a repeat answers the first answer, not SESSION_ENDED.',
    ].join(' '),
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter, headers: actionKeyHeaders('expire') },
    responses: {
      200: {
        description: 'The session is ended; `order_cancelled` is on its way (or, with a replayed Idempotency-Key, had been).',
        headers: { ...requestIdHeader, ...replayedHeader },
        content: json(expiredCartSchema),
      },
      ...errorResponses(EXPIRE_ERRORS),
    },
  },
});

export const RETRY_CART = declareRoute({
  method: 'post',
  path: '/v2/merchant/carts/{cartId}/retry',
  operation: {
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
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter, headers: actionKeyHeaders('retry') },
    responses: {
      200: {
        description: 'The new session (or, with a replayed Idempotency-Key, the one the first request made).',
        headers: { ...requestIdHeader, ...replayedHeader },
        content: json(retriedCartSchema),
      },
      ...errorResponses(RETRY_ERRORS),
    },
  },
});

export const CAPTURE_ORDER = declareRoute({
  method: 'post',
  path: '/v2/merchant/orders/{cartId}/capture',
  operation: {
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
    security: MERCHANT_SECURITY,
    request: {
      params: cartIdParameter,
      headers: actionKeyHeaders('capture'),
      body: { required: true, content: { 'application/json': { schema: captureRequestSchema, example: { amount: 3000 } } } },
    },
    responses: { ...holdAnswers('captured (`paid`)'), ...errorResponses(CAPTURE_ERRORS) },
  },
});

export const VOID_ORDER = declareRoute({
  method: 'post',
  path: '/v2/merchant/orders/{cartId}/void',
  operation: {
    operationId: 'voidOrder',
    summary: 'Void an authorized order',
    description:
      'Releases the hold of an `authorized` order (captureMethod manual): the order becomes `cancelled` and `order_cancelled` is sent. No body. Races with a capture and the hold timer as capture does. Send an Idempotency-Key to retry safely: a repeat answers the first answer, not ORDER_NOT_AUTHORIZED.',
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter, headers: actionKeyHeaders('void') },
    responses: { ...holdAnswers('voided (`cancelled`)'), ...errorResponses(VOID_ERRORS) },
  },
});

/** In the document's order. */
export const ORDER_PATHS = [GET_MERCHANT, LIST_ORDERS, GET_ORDER, REFUND_ORDER, EXPIRE_CART, RETRY_CART, CAPTURE_ORDER, VOID_ORDER];
