import { Hono } from 'hono';
import { createCartRequestSchema, LIMITS } from '../../core/checkout/cart-schema.js';
import { createCartSession, type CartSessionDeps } from './create-cart-session.js';
import { presentedBearerToken } from '../../core/bearer-token.js';
import { clientAddress } from '../../core/client-address.js';
import { methodNotAllowed } from '../errors.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { IDEMPOTENCY_HEADER, readIdempotencyKey } from './idempotency.js';
import type { ApiMetrics } from '../metrics.js';
import { enforceRateLimit } from './rate-limit.js';

export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** `POST /v2/public/api/cart/` — the one public operation: create a cart session. */
export function cartRoutes(deps: CartSessionDeps & { cartsCreated: Pick<ApiMetrics['cartsCreated'], 'inc'> }) {
  const { config, db, logger } = deps;
  const { rateLimit } = config;
  const app = new Hono();

  app.post(
    '/',
    // Cheap checks first, before the body is read: a flood of junk costs one counter update each.
    async (c, next) => {
      await enforceRateLimit(db, c.get('logger') ?? logger, {
        bucket: `client:${clientAddress(c, config.trustedProxyHops)}`,
        max: rateLimit.perClient,
        windowSeconds: rateLimit.windowSeconds,
      });
      await next();
    },
    jsonBody(LIMITS.bodyBytes),
    async (c) => {
      const address = clientAddress(c, config.trustedProxyHops);
      const idempotencyKey = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
      const request = await readValidJson(c, createCartRequestSchema);

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
      const outcome = await createCartSession(
        { ...deps, logger: c.get('logger') ?? logger },
        request,
        idempotencyKey,
        presentedBearerToken(c.req.header('authorization')),
      );
      if (outcome.replayed) c.header(REPLAYED_HEADER, 'true');
      else deps.cartsCreated.inc({ environment: config.environment });
      return c.json(outcome.response);
    },
  );
  app.all('/', methodNotAllowed(['POST']));
  return app;
}
