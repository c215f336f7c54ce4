import { disputeEvidenceSchema } from '../../core/checkout/dispute-evidence.js';
import { orderSchema } from '../../core/orders/order-schema.js';
import {
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
import { cartIdParameter, ORDER_NOT_FOUND } from './order-path-parts.js';

/** The routes of ./dispute-routes.ts, the merchant's answer to a dispute, declared once; api/docs/openapi.ts documents them from here. */

/** The evidence's text fields fit well within this. */
export const EVIDENCE_BODY_BYTES = 64 * 1024;

const NOT_OPEN: DocumentedError = {
  description:
    'DISPUTE_NOT_OPEN: the order has no dispute, its dispute was already answered otherwise (a dispute takes one answer: the same answer again is safe), or it no longer needs a response (under review, won or lost).',
  examples: [example('DISPUTE_NOT_OPEN', 'This order has no dispute to answer.', [{ path: 'cartId', message: 'has no dispute' }])],
};

const answered = (what: string) => ({
  202: {
    description: `The order, its dispute still \`needs_response\`: ${what} is recorded and on its way to the processor; order_updated (data.dispute.status) follows.`,
    headers: requestIdHeader,
    content: json(orderSchema),
  },
});

export const SUBMIT_DISPUTE_EVIDENCE = declareRoute({
  method: 'post',
  path: '/v2/merchant/orders/{cartId}/dispute/evidence',
  operation: {
    operationId: 'submitDisputeEvidence',
    summary: 'Answer the order’s dispute with evidence',
    description:
      'While the order’s dispute is `needs_response` (before `evidenceDueBy`): your evidence, in words, of the kind you name, goes to the processor once (Stripe: submitted as the dispute’s evidence). The evidence is customer data: kept sealed, never shown back. The dispute becomes `under_review` (order_updated), then `won` or `lost`.',
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter, body: { required: true, content: json(disputeEvidenceSchema) } },
    responses: {
      ...answered('your evidence'),
      ...errorResponses([
        ...bodyErrors(EVIDENCE_BODY_BYTES, 'an unknown kind, an empty or overlong text field, or an unknown field.', {
          path: 'explanation',
          message: 'must not be empty',
        }),
        MERCHANT_UNAUTHORIZED,
        ORDER_NOT_FOUND,
        methodNotAllowedError('POST'),
        NOT_OPEN,
        MERCHANT_INTERNAL,
        MERCHANT_UNAVAILABLE,
      ]),
    },
  },
});

export const ACCEPT_DISPUTE = declareRoute({
  method: 'post',
  path: '/v2/merchant/orders/{cartId}/dispute/accept',
  operation: {
    operationId: 'acceptDispute',
    summary: 'Accept the order’s dispute',
    description:
      'While the order’s dispute is `needs_response`: you accept it and the customer keeps the money (Stripe: the dispute is closed). No body. The dispute becomes `lost` (order_updated).',
    tags: ['Merchant API'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter },
    responses: {
      ...answered('your acceptance'),
      ...errorResponses([MERCHANT_UNAUTHORIZED, ORDER_NOT_FOUND, methodNotAllowedError('POST'), NOT_OPEN, MERCHANT_INTERNAL, MERCHANT_UNAVAILABLE]),
    },
  },
});

/** In the document's order. */
export const DISPUTE_PATHS = [SUBMIT_DISPUTE_EVIDENCE, ACCEPT_DISPUTE];
