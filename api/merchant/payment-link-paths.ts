import {
  createPaymentLinkSchema,
  PAYMENT_LINK_LIMITS,
  paymentLinkListSchema,
  paymentLinkSchema,
  updatePaymentLinkSchema,
} from '../../core/links/payment-link-schema.js';
import { z } from 'zod';
import { CREATE_CART_EXAMPLE } from '../carts/cart-paths.js';
import {
  bodyErrors,
  errorResponses,
  example,
  json,
  MERCHANT_COMMON_ERRORS,
  MERCHANT_SECURITY,
  methodNotAllowedError,
  requestIdHeader,
  AMOUNT_NOT_REPRESENTABLE_EXAMPLE,
  type DocumentedError,
  auditEntryHeader,
} from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';

/** The routes ./payment-link-routes.ts serves, declared once: the merchant's payment links (docs/payment-links.md). */

/** A PATCH body is one boolean: anything near this size is not one. */
export const PAYMENT_LINK_PATCH_BYTES = 1024;

const paymentLinkIdParameter = z.object({
  id: z.string().meta({ description: 'The link’s id', example: 'pl_3Jd8s0aKq1VbT7wYxZ2mNg' }),
});

const LINK_NOT_FOUND: DocumentedError = {
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

export const LIST_PAYMENT_LINKS = declareRoute({
  method: 'get',
  path: '/v2/merchant/payment-links',
  operation: {
    operationId: 'listPaymentLinks',
    summary: 'List your payment links',
    description: `Your ${PAYMENT_LINK_LIMITS.listSize} newest links, newest first, each with its visits (sessions opened) and paid sessions.`,
    tags: ['Payment links'],
    security: MERCHANT_SECURITY,
    responses: {
      200: { description: 'Your links.', headers: requestIdHeader, content: json(paymentLinkListSchema) },
      ...errorResponses([...MERCHANT_COMMON_ERRORS, methodNotAllowedError('GET, POST')]),
    },
  },
});

export const CREATE_PAYMENT_LINK = declareRoute({
  method: 'post',
  path: '/v2/merchant/payment-links',
  operation: {
    operationId: 'createPaymentLink',
    summary: 'Create a payment link',
    description: [
      'Keeps `cartObject`, checked exactly as create-cart checks it, and answers the link’s `url`, `{CHECKOUT_BASE_URL}/l/<id>`. Each visit of the url',
      'opens a new checkout session of this cart (a new cartId, the usual lifetime) and sends the customer to it; its order and every event',
      'say `paymentLinkId` and `createdWith: "api_key"`. From `expiresAt`, after `maxUses` paid sessions, or once closed, visits answer 410.',
    ].join(' '),
    tags: ['Payment links'],
    security: MERCHANT_SECURITY,
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
      201: { description: 'The link.', headers: { ...requestIdHeader, ...auditEntryHeader }, content: json(paymentLinkSchema) },
      ...errorResponses([
        ...createBodyErrors,
        ...MERCHANT_COMMON_ERRORS,
        {
          description: 'CURRENCY_NOT_SUPPORTED or AMOUNT_NOT_REPRESENTABLE: the payment processor cannot charge this cart, as create-cart would say.',
          examples: [AMOUNT_NOT_REPRESENTABLE_EXAMPLE('cartObject.cart.items')],
        },
      ]),
    },
  },
});

export const GET_PAYMENT_LINK = declareRoute({
  method: 'get',
  path: '/v2/merchant/payment-links/{id}',
  operation: {
    operationId: 'getPaymentLink',
    summary: 'One payment link',
    description: 'The link as created, whether it is open, and its visits and paid sessions.',
    tags: ['Payment links'],
    security: MERCHANT_SECURITY,
    request: { params: paymentLinkIdParameter },
    responses: {
      200: { description: 'The link.', headers: requestIdHeader, content: json(paymentLinkSchema) },
      ...errorResponses([...MERCHANT_COMMON_ERRORS, LINK_NOT_FOUND, methodNotAllowedError('GET, PATCH')]),
    },
  },
});

export const CLOSE_PAYMENT_LINK = declareRoute({
  method: 'patch',
  path: '/v2/merchant/payment-links/{id}',
  operation: {
    operationId: 'closePaymentLink',
    summary: 'Close a payment link',
    description:
      'With `{"active": false}`: new visits answer 410 from now on, and the sessions already opened from it (their retries and recoveries too) can no longer be paid: Pay is refused on their page. A payment already submitted finishes. Closing a closed link changes nothing.',
    tags: ['Payment links'],
    security: MERCHANT_SECURITY,
    request: {
      params: paymentLinkIdParameter,
      body: { required: true, content: { 'application/json': { schema: updatePaymentLinkSchema, example: { active: false } } } },
    },
    responses: {
      200: { description: 'The link, closed.', headers: { ...requestIdHeader, ...auditEntryHeader }, content: json(paymentLinkSchema) },
      ...errorResponses([
        ...bodyErrors(PAYMENT_LINK_PATCH_BYTES, 'active is not false, or an unknown field.', {
          path: 'active',
          message: 'must be false: a closed link stays closed; create a new link to sell again',
        }),
        ...MERCHANT_COMMON_ERRORS,
        LINK_NOT_FOUND,
      ]),
    },
  },
});

/** In the document's order. */
export const PAYMENT_LINK_PATHS = [LIST_PAYMENT_LINKS, CREATE_PAYMENT_LINK, GET_PAYMENT_LINK, CLOSE_PAYMENT_LINK];
