import { Hono } from 'hono';
import { createCartRequestSchema, LIMITS } from '../../core/checkout/cart-schema.js';
import { createCartSession, type CartSessionDeps } from './create-cart-session.js';
import { presentedBearerToken } from '../../core/bearer-token.js';
import { clientAddress, perAddress as perAddressLimits } from '../../core/client-address.js';
import { identifyCartCaller } from './cart-caller.js';
import { methodNotAllowed } from '../errors.js';
import { assertChargeable } from '../chargeable-amount.js';
import { processorCurrencies } from '../../core/checkout/processor-amounts.js';
import { cartTotal } from '../../core/money.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { IDEMPOTENCY_HEADER, readIdempotencyKey } from './idempotency.js';
import type { ApiMetrics } from '../metrics.js';
import { enforceRateLimits } from './rate-limit.js';
import type { Limit } from '../../core/rate-limits.js';

export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** `POST /v2/public/api/cart/` — the one public operation: create a cart session. */
export function cartRoutes(deps: CartSessionDeps & { cartsCreated: Pick<ApiMetrics['cartsCreated'], 'inc'> }) {
  const { config, db, logger } = deps;
  const { rateLimit } = config;
  const app = new Hono();
  const currencies = processorCurrencies(config.payments.processor);

  /** One limit per client address, and for an IPv6 client its /48's, a few clients' worth. */
  const perAddress = (bucket: string, address: string, max: number): Limit[] =>
    perAddressLimits(bucket, address, max, rateLimit.windowSeconds, rateLimit.ipv6Clients48);

  app.post(
    '/',
    // Cheap checks first, before the body is read: a flood of junk costs one counter update each.
    async (c, next) => {
      await enforceRateLimits(db, c.get('logger') ?? logger, perAddress('client', clientAddress(c, config.trustedProxyHops), rateLimit.perClient));
      await next();
    },
    jsonBody(LIMITS.bodyBytes),
    async (c) => {
      const log = c.get('logger') ?? logger;
      const address = clientAddress(c, config.trustedProxyHops);
      const idempotencyKey = readIdempotencyKey(c.req.header(IDEMPOTENCY_HEADER));
      const request = await readValidJson(c, createCartRequestSchema);
      const { cart } = request.cartObject;
      assertChargeable(currencies, cart.currency, cartTotal(cart.items), { currency: 'cartObject.cart.currency', amount: 'cartObject.cart.items' });

      const platform = request.cartObject.store.platformUuid.toLowerCase();
      // Who asks comes before the merchant's counters: a request refused for lacking the key a merchant
      // requires never touches them, so strangers cannot spend the merchant's allowance.
      const caller = await identifyCartCaller(deps, request.cartObject.store.platformUuid, address, presentedBearerToken(c.req.header('authorization')));
      if (caller.createdWith === 'api_key') {
        // The merchant's own requests have a merchant-wide counter of their own, which no public request reaches.
        await enforceRateLimits(db, log, [{ bucket: `platform-key:${platform}`, max: rateLimit.perPlatform, windowSeconds: rateLimit.windowSeconds }]);
      } else {
        // This address's share of the merchant first: a stranger who knows the public platformUuid
        // runs out here, long before the merchant-wide ceiling of public requests, which its refused
        // requests never reach (counted in turn, in one round trip).
        await enforceRateLimits(db, log, [
          ...perAddress(`platform-client:${platform}`, address, rateLimit.perPlatformClient),
          { bucket: `platform:${platform}`, max: rateLimit.perPlatform, windowSeconds: rateLimit.windowSeconds },
        ]);
      }
      const outcome = await createCartSession({ ...deps, logger: log }, request, caller, { idempotencyKey });
      if (outcome.replayed) c.header(REPLAYED_HEADER, 'true');
      else deps.cartsCreated.inc({ environment: config.environment });
      return c.json(outcome.response);
    },
  );
  app.all('/', methodNotAllowed(['POST']));
  return app;
}
