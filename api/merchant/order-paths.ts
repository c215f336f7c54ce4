import { z } from 'zod';
import { SANDBOX_REFUND_DECLINED_AMOUNT } from '../../core/checkout/payment-processors/sandbox.js';
import { merchantProfileSchema } from '../../core/merchants/merchant-schema.js';
import { ORDER_LIMITS, orderListQuerySchema, orderListSchema, orderSchema, refundRequestSchema, refundSchema } from '../../core/orders/order-schema.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, REPLAYED_HEADER } from '../../application/carts/idempotency.js';
import {
  AMOUNT_NOT_REPRESENTABLE_EXAMPLE,
  errorResponses,
  example,
  json,
  MERCHANT_INTERNAL,
  MERCHANT_SECURITY,
  MERCHANT_UNAUTHORIZED,
  MERCHANT_FORBIDDEN,
  MERCHANT_UNAVAILABLE,
  methodNotAllowedError,
  requestIdHeader,
  type DocumentedError,
  auditEntryHeader,
} from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';
import { cartIdParameter, ORDER_NOT_FOUND } from './order-path-parts.js';

/** The routes of ./routes.ts for the merchant's profile, orders and refunds, declared once; api/docs/openapi.ts documents them from here. */

/** A refund body is two fields: anything near this size is not one. */
export const REFUND_BODY_BYTES = 16 * 1024;

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
  MERCHANT_FORBIDDEN,
  methodNotAllowedError('GET'),
  MERCHANT_INTERNAL,
  MERCHANT_UNAVAILABLE,
];

const ORDER_ERRORS: DocumentedError[] = [
  MERCHANT_UNAUTHORIZED,
  MERCHANT_FORBIDDEN,
  ORDER_NOT_FOUND,
  methodNotAllowedError('GET'),
  MERCHANT_INTERNAL,
  MERCHANT_UNAVAILABLE,
];

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
  MERCHANT_FORBIDDEN,
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
      ...errorResponses([MERCHANT_UNAUTHORIZED, MERCHANT_FORBIDDEN, methodNotAllowedError('GET'), MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE]),
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
          ...auditEntryHeader,
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

/** In the document's order. */
export const ORDER_PATHS = [GET_MERCHANT, LIST_ORDERS, GET_ORDER, REFUND_ORDER];
