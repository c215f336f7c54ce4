import { captureRequestSchema, orderSchema } from '../../core/orders/order-schema.js';
import {
  AMOUNT_NOT_REPRESENTABLE_EXAMPLE,
  bodyErrors,
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
import {
  ACTION_KEY_CONFLICT,
  ACTION_KEY_CONFLICT_DESCRIPTION,
  actionKeyHeaders,
  cartIdParameter,
  MALFORMED_KEY,
  ORDER_NOT_FOUND,
  replayedHeader,
} from './order-path-parts.js';

/** The routes of ./routes.ts that decide an authorized order's hold, capture and void, declared once; api/docs/openapi.ts documents them from here. */

/** A capture's body is one optional field. */
export const CAPTURE_BODY_BYTES = 1024;

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
  MERCHANT_FORBIDDEN,
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
  MERCHANT_FORBIDDEN,
  ORDER_NOT_FOUND,
  methodNotAllowedError('POST'),
  { description: `${NOT_AUTHORIZED.description} ${ACTION_KEY_CONFLICT_DESCRIPTION}`, examples: [...NOT_AUTHORIZED.examples, ACTION_KEY_CONFLICT] },
  MERCHANT_INTERNAL,
  MERCHANT_UNAVAILABLE,
];

/** A capture's or void's answers: 200 once the processor answered, 202 while it works on it. */
const holdAnswers = (what: string) => ({
  200: { description: `The order, ${what}.`, headers: { ...requestIdHeader, ...replayedHeader, ...auditEntryHeader }, content: json(orderSchema) },
  202: {
    description: 'The order, still `authorized`: the processor has not answered yet; the outcome follows (its webhook, or the order).',
    headers: { ...requestIdHeader, ...auditEntryHeader },
    content: json(orderSchema),
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
export const HOLD_PATHS = [CAPTURE_ORDER, VOID_ORDER];
