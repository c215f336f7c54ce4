import { z } from 'zod';
import { CAPTURE_METHODS, CART_STATUSES } from '../../core/checkout/session.js';
import { CLOCK_TARGETS } from '../../workflows/cart-session/messages.js';
import {
  bodyErrors,
  errorResponses,
  example,
  json,
  MERCHANT_COMMON_ERRORS,
  MERCHANT_SECURITY,
  methodNotAllowedError,
  requestIdHeader,
  together,
  type DocumentedError,
} from '../docs/responses.js';
import { declareRoute } from '../route-declaration.js';
import { SANDBOX_HELPER_CONTACT, SANDBOX_OUTCOMES } from './complete-cart.js';

/** The sandbox helpers ./routes.ts serves, declared once; a sandbox deployment's document lists them (api/docs/openapi.ts). */

/** Two short fields: anything near this size is not a helper's body. */
export const SANDBOX_BODY_BYTES = 1024;

const cartIdParameter = z.object({ cartId: z.string().meta({ description: 'A cart of yours in this sandbox', example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }) });

export const completeRequestSchema = z
  .strictObject({
    outcome: z.enum(SANDBOX_OUTCOMES, { error: `must be one of ${SANDBOX_OUTCOMES.join(', ')}` }).meta({
      description:
        'What the customer does: approved (4111 1111 1111 1111), declined (4000 0000 0000 0002), challenge_passed and challenge_failed (4000 0027 6000 3184, the 3-D Secure challenge completed or failed), frictionless (4000 0000 0000 3055)',
    }),
    captureMethod: z.enum(CAPTURE_METHODS, { error: 'must be "automatic" or "manual"' }).optional().meta({
      description: 'Optional: what you expect the cart to say (its cartObject.cart.captureMethod, automatic when absent); refused when it says otherwise',
    }),
  })
  .meta({ id: 'SandboxCompleteRequest' });

export const advanceRequestSchema = z
  .strictObject({
    to: z.enum(CLOCK_TARGETS, { error: `must be one of ${CLOCK_TARGETS.join(', ')}` }).meta({
      description:
        "The timer to fire now: expired (the session's expiry: order_abandoned), authorization_expired (a manual-capture order's hold: voided, order_cancelled with failureCode authorization_expired), reminder_due (an abandoned session's recovery reminder: sent)",
    }),
  })
  .meta({ id: 'SandboxAdvanceRequest' });

export const sandboxCartSchema = z
  .strictObject({
    cartId: z.string(),
    status: z.enum(CART_STATUSES).meta({ description: 'The session’s status once the helper’s step is recorded; its webhooks are on their way' }),
    failureCode: z.string().optional().meta({ description: 'With status failed or cancelled: why (the order’s failureCode)' }),
  })
  .meta({ id: 'SandboxCart' });

const NOT_FOUND: DocumentedError = {
  description: 'NOT_FOUND: no cart of yours in this sandbox has this cartId. A production deployment answers 404 to every /v2/sandbox/ path.',
  examples: [
    example('NOT_FOUND', 'No sandbox cart of yours has this cartId. Check the cartId and that the API key is of this sandbox.', [
      { path: 'cartId', message: 'q3Vh0Xc2b1TzM9r8L5kA7wYe is not one of your carts in this environment' },
    ]),
  ],
};
const RATE_LIMITED: DocumentedError = {
  description: "RATE_LIMITED: the checkout page's limits on actions and codes from your address (RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT, OTP_SENDS_PER_CLIENT).",
  examples: [
    example(
      'RATE_LIMITED',
      "Too many checkout actions or codes from your address: the sandbox helpers count against the checkout page's limits. Retry after 42 s.",
    ),
  ],
  retryAfter: true,
};

export const COMPLETE_CART = declareRoute({
  method: 'post',
  path: '/v2/sandbox/carts/{cartId}/complete',
  operation: {
    operationId: 'sandboxCompleteCart',
    summary: 'Sandbox: do the customer’s part of a checkout',
    description: [
      `Sandbox only. Sends the one-time code to ${SANDBOX_HELPER_CONTACT} and verifies it, pays with the sandbox card of \`outcome\`, and answers its 3-D Secure challenge,`,
      'each through the same session update the hosted page sends: the order and its webhooks are the real ones, as after a customer on the page.',
      'Only a cart no browser has started; from then on the page serves it to no browser. Answers once the outcome is recorded.',
    ].join(' '),
    tags: ['Sandbox helpers'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter, body: { content: json(completeRequestSchema), required: true } },
    responses: {
      200: { description: 'The customer’s part is done: the session’s status', headers: requestIdHeader, content: json(sandboxCartSchema) },
      ...errorResponses([
        ...bodyErrors(SANDBOX_BODY_BYTES, 'outcome missing or not one of the five, captureMethod not what the cart says, or an unknown field.', {
          path: 'outcome',
          message: `must be one of ${SANDBOX_OUTCOMES.join(', ')}`,
        }),
        NOT_FOUND,
        methodNotAllowedError('POST'),
        {
          description:
            'SESSION_IN_BROWSER: a browser started this checkout on the hosted page; create a new cart. SESSION_ENDED: the session is no longer open, refused the step, or its payment link sells no more (closed, expired or used up).',
          examples: [
            example(
              'SESSION_IN_BROWSER',
              'A browser has started this checkout on the hosted page: the helpers drive only carts no browser has started, so the page and the helper never act for one customer together. Create a new cart.',
              [{ path: 'cartId', message: 'was started by a browser' }],
            ),
            example('SESSION_ENDED', 'This session has already ended (paid); there is nothing left to drive.', [
              { path: 'cartId', message: 'is not an open session: it is paid' },
            ]),
          ],
        },
        RATE_LIMITED,
        ...MERCHANT_COMMON_ERRORS,
      ]),
    },
  },
});

export const ADVANCE_CART = declareRoute({
  method: 'post',
  path: '/v2/sandbox/carts/{cartId}/advance',
  operation: {
    operationId: 'sandboxAdvanceCart',
    summary: 'Sandbox: fire one of a session’s timers now',
    description: [
      'Sandbox only. A test clock: the session’s own timer fires now, inside its workflow, and what follows is what that timer does (no database edit):',
      '`expired` gives order_abandoned within seconds, `authorization_expired` voids a manual-capture order’s authorization (order_cancelled),',
      '`reminder_due` sends an abandoned session’s recovery reminder. Answers once the outcome is recorded.',
    ].join(' '),
    tags: ['Sandbox helpers'],
    security: MERCHANT_SECURITY,
    request: { params: cartIdParameter, body: { content: json(advanceRequestSchema), required: true } },
    responses: {
      200: { description: 'The timer fired: the session’s status', headers: requestIdHeader, content: json(sandboxCartSchema) },
      ...errorResponses([
        ...bodyErrors(SANDBOX_BODY_BYTES, 'to missing or not one of the three, or an unknown field.', {
          path: 'to',
          message: `must be one of ${CLOCK_TARGETS.join(', ')}`,
        }),
        NOT_FOUND,
        methodNotAllowedError('POST'),
        together({
          description:
            'NOTHING_TO_ADVANCE: that timer is not running: expired needs an open session before Pay, authorization_expired an authorized (manual-capture) order not yet captured or voided, reminder_due an abandoned session waiting to remind its customer.',
          examples: [
            example('NOTHING_TO_ADVANCE', 'No expired timer is running in this session. Nothing was advanced.', [
              { path: 'to', message: 'no expired timer is running in this session' },
            ]),
          ],
        }),
        ...MERCHANT_COMMON_ERRORS,
      ]),
    },
  },
});

/** In the document's order. */
export const SANDBOX_PATHS = [COMPLETE_CART, ADVANCE_CART];
