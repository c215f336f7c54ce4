import { z } from 'zod';
import { orderSchema } from '../../core/orders/order-schema.js';
import {
  errorResponses,
  example,
  json,
  MERCHANT_INTERNAL,
  MERCHANT_SECURITY,
  MERCHANT_UNAUTHORIZED,
  MERCHANT_UNAVAILABLE,
  methodNotAllowedError,
  requestIdHeader,
} from '../docs/responses.js';
import { cartIdParameter, ORDER_NOT_FOUND } from '../merchant/order-path-parts.js';
import { declareRoute } from '../route-declaration.js';

/** The sandbox's dispute helper (./dispute-routes.ts), declared once; api/docs/openapi.ts documents it from here. */

export const SANDBOX_DISPUTE_BODY_BYTES = 1024;

export const sandboxDisputeRequestSchema = z
  .strictObject({
    reason: z
      .enum(['fraudulent', 'product_not_received', 'product_unacceptable', 'duplicate', 'subscription_canceled', 'credit_not_processed', 'general'])
      .optional()
      .meta({ description: 'The card network’s reason the dispute gives; fraudulent when absent', example: 'product_not_received' }),
  })
  .meta({ id: 'SandboxDisputeRequest' });

export const OPEN_SANDBOX_DISPUTE = declareRoute({
  method: 'post',
  path: '/v2/sandbox/carts/{cartId}/dispute',
  operation: {
    operationId: 'openSandboxDispute',
    summary: 'Sandbox: open a dispute on a paid order',
    description:
      'Sandbox only (404 in production): the simulated customer disputes the whole payment of a paid order, as the card 4000 0000 0000 0259 does by itself. order_disputed follows, then reminders as evidenceDueBy (SANDBOX_DISPUTE_RESPONSE_SECONDS away) nears; answer it as you would a real one. Evidence wins after SANDBOX_DISPUTE_REVIEW_SECONDS; accepting, or no answer by evidenceDueBy, loses. The body may be {}.',
    tags: ['Sandbox helpers'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter, body: { required: true, content: json(sandboxDisputeRequestSchema) } },
    responses: {
      202: { description: 'The order; its dispute opens within moments (order_disputed).', headers: requestIdHeader, content: json(orderSchema) },
      ...errorResponses([
        MERCHANT_UNAUTHORIZED,
        {
          description: `${ORDER_NOT_FOUND.description} In production, every request: the sandbox helpers do not exist there.`,
          examples: ORDER_NOT_FOUND.examples,
        },
        methodNotAllowedError('POST'),
        {
          description: 'ORDER_NOT_PAID: the order is not paid, or it already has a dispute.',
          examples: [
            example('ORDER_NOT_PAID', 'Only a paid order without a dispute can be disputed.', [
              { path: 'cartId', message: 'is not a paid order without a dispute' },
            ]),
          ],
        },
        MERCHANT_INTERNAL,
        MERCHANT_UNAVAILABLE,
      ]),
    },
  },
});

export const SANDBOX_DISPUTE_PATHS = [OPEN_SANDBOX_DISPUTE];
