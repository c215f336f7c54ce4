import { z } from 'zod';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN, REPLAYED_HEADER } from '../../application/carts/idempotency.js';
import { example, type DocumentedError } from '../docs/responses.js';

/** What the order, hold and session routes' declarations share (./order-paths.ts, ./hold-paths.ts, ./session-paths.ts): the cartId, its 404, the Idempotency-Key of an action. */

export const ORDER_NOT_FOUND: DocumentedError = {
  description: 'NOT_FOUND: no order of yours in this environment has this cartId (another merchant’s cart answers the same: never 403).',
  examples: [
    example(
      'NOT_FOUND',
      'No order of yours in this environment has this cartId. Check the cartId and that the API key is of the environment the cart was created in.',
      [{ path: 'cartId', message: 'q3Vh0Xc2b1TzM9r8L5kA7wYe is not one of your orders in this environment' }],
    ),
  ],
};

/** A capture's, void's or expire's Idempotency-Key used for another request. */
export const ACTION_KEY_CONFLICT = example(
  'IDEMPOTENCY_CONFLICT',
  'This Idempotency-Key was already used for another request (another order, action or amount). Use a new key for a new request.',
  [{ path: IDEMPOTENCY_HEADER, message: 'was used with a different request' }],
);
export const ACTION_KEY_CONFLICT_DESCRIPTION =
  'IDEMPOTENCY_CONFLICT: the Idempotency-Key was used for another request (another order, action or amount) in the last 24 hours.';
/** Capture, void and expire without a body to refuse: a malformed Idempotency-Key is their one 400. */
export const MALFORMED_KEY: DocumentedError = {
  description: 'VALIDATION_ERROR: a malformed Idempotency-Key (8 to 255 visible ASCII characters).',
  examples: [
    example('VALIDATION_ERROR', 'The Idempotency-Key header is malformed.', [
      { path: IDEMPOTENCY_HEADER, message: 'must be 8 to 255 visible ASCII characters, e.g. a UUID' },
    ]),
  ],
};
/** The Idempotency-Key of capture, void, expire and retry, and the header of a replayed answer. */
export const actionKeyHeaders = (what: string) =>
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
export const replayedHeader = {
  [REPLAYED_HEADER]: {
    description: 'Present (true) when this is the answer of an earlier request: the same Idempotency-Key, or (capture) the same capture.',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};

export const cartIdParameter = z.object({
  cartId: z.string().meta({ description: 'The cartId create-cart returned', example: 'q3Vh0Xc2b1TzM9r8L5kA7wYe' }),
});
