import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { createCartRequestSchema, LIMITS } from '../../core/schemas/cart.js';
import type { Temporal } from '../../core/temporal.js';
import { createCartSession } from '../cart-sessions.js';
import { isDependencyUnavailable, serviceUnavailable } from '../dependency-errors.js';
import { ApiError, validationError } from '../errors.js';


/** `POST /v2/public/api/cart/` — the one public operation: create a cart session. */
export function cartRoutes(deps: { config: Config; db: Db; temporal: Temporal }) {
  const app = new Hono();

  const createCart = app.post(
    '/',
    async (c, next) => {
      const type = c.req.header('content-type') ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type)) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.');
      }
      await next();
    },
    // Counts bytes while the body streams in, so a huge body is cut off instead of buffered.
    bodyLimit({
      maxSize: LIMITS.bodyBytes,
      onError: () => {
        throw new ApiError('PAYLOAD_TOO_LARGE', `The body must be at most ${LIMITS.bodyBytes} bytes.`);
      },
    }),
    async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw new ApiError('INVALID_JSON', 'The body is not valid JSON. Check for trailing commas, unquoted keys or a truncated body.');
      }
      const parsed = createCartRequestSchema.safeParse(body);
      if (!parsed.success) throw validationError(parsed.error);

      try {
        const created = await createCartSession(deps, parsed.data);
        return c.json({
          code: 'SUCCESS',
          message: 'Cart created',
          data: { cartId: created.cartId, cartData: parsed.data.cartObject, expiresOn: created.expiresOn },
        });
      } catch (err) {
        if (err instanceof ApiError) throw err;
        if (isDependencyUnavailable(err)) throw serviceUnavailable();
        throw err;
      }
    },
  );
  return createCart;
}
