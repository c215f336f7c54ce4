import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createCartRequestSchema, LIMITS } from '../../core/checkout/cart-schema.js';
import { createCartSession, type CartSessionDeps } from './create-cart-session.js';
import { presentedBearerToken } from '../../core/bearer-token.js';
import { clientAddress } from '../../core/client-address.js';
import { identifyCartCaller } from './cart-caller.js';
import { isDependencyUnavailable, serviceUnavailable } from '../dependency-errors.js';
import { ApiError, methodNotAllowed } from '../errors.js';
import { readValidJson } from '../json-body.js';
import { IDEMPOTENCY_HEADER, readIdempotencyKey } from './idempotency.js';
import type { ApiMetrics } from '../metrics.js';
import { enforceRateLimit } from './rate-limit.js';

export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Turns an unreachable Temporal or PostgreSQL into 503, leaving every other error as it is. */
async function orUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof ApiError) && isDependencyUnavailable(err)) throw serviceUnavailable();
    throw err;
  }
}

/** `POST /v2/public/api/cart/` — the one public operation: create a cart session. */
export function cartRoutes(deps: CartSessionDeps & { cartsCreated: Pick<ApiMetrics['cartsCreated'], 'inc'> }) {
  const { config, db, logger } = deps;
  const { rateLimit } = config;
  const app = new Hono();

  app.post(
    '/',
    // Cheap checks first, before the body is read: a flood of junk costs one counter update each.
    async (c, next) => {
      await orUnavailable(() =>
        enforceRateLimit(db, c.get('logger') ?? logger, {
          bucket: `client:${clientAddress(c, config.trustedProxyHops)}`,
          max: rateLimit.perClient,
          windowSeconds: rateLimit.windowSeconds,
        }),
      );
      if (!/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with the header Content-Type: application/json.');
      }
      await next();
    },
    // Counts bytes while the body streams in, so a huge body is cut off instead of buffered.
    bodyLimit({
      maxSize: LIMITS.bodyBytes,
      // The rest of the body is never read, so the connection cannot carry another request: say so,
      // or a keep-alive client reuses it and fails.
      onError: () => {
        throw new ApiError('PAYLOAD_TOO_LARGE', `The body must be at most ${LIMITS.bodyBytes} bytes.`, [], { Connection: 'close' });
      },
    }),
    async (c) => {
      const address = clientAddress(c, config.trustedProxyHops);
      const idempotencyKey = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
      const request = await readValidJson(c, createCartRequestSchema);

      const outcome = await orUnavailable(async () => {
        const platform = request.cartObject.store.platformUuid.toLowerCase();
        // This address's share of the merchant first: a stranger who knows the public platformUuid
        // runs out here, long before the merchant-wide ceiling that would refuse the merchant too.
        await enforceRateLimit(db, c.get('logger') ?? logger, {
          bucket: `platform-client:${platform}:${address}`,
          max: rateLimit.perPlatformClient,
          windowSeconds: rateLimit.windowSeconds,
        });
        await enforceRateLimit(db, c.get('logger') ?? logger, {
          bucket: `platform:${platform}`,
          max: rateLimit.perPlatform,
          windowSeconds: rateLimit.windowSeconds,
        });
        const caller = await identifyCartCaller(deps, request.cartObject.store.platformUuid, address, presentedBearerToken(c.req.header('authorization')));
        return createCartSession({ ...deps, logger: c.get('logger') ?? logger }, request, caller, idempotencyKey);
      });
      if (outcome.replayed) c.header(REPLAYED_HEADER, 'true');
      else deps.cartsCreated.inc({ environment: config.environment });
      return c.json(outcome.response);
    },
  );
  app.all('/', methodNotAllowed(['POST']));
  return app;
}
