import { expiredCartSchema, retriedCartSchema, RETRIES } from '../../core/checkout/cart-schema.js';
import {
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

/** The routes of ./routes.ts that act on an open or failed checkout session, expire and retry, declared once; api/docs/openapi.ts documents them from here. */

const EXPIRE_ERRORS: DocumentedError[] = [
  MALFORMED_KEY,
  MERCHANT_UNAUTHORIZED,
  MERCHANT_FORBIDDEN,
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
  MERCHANT_FORBIDDEN,
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
        headers: { ...requestIdHeader, ...replayedHeader, ...auditEntryHeader },
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
        headers: { ...requestIdHeader, ...replayedHeader, ...auditEntryHeader },
        content: json(retriedCartSchema),
      },
      ...errorResponses(RETRY_ERRORS),
    },
  },
});

/** In the document's order. */
export const SESSION_PATHS = [EXPIRE_CART, RETRY_CART];
