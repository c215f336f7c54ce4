import { Hono } from 'hono';
import { createCartRequestSchema, LIMITS } from '../../core/checkout/cart-schema.js';
import { createCartSession, type CartSessionDeps } from '../../application/carts/create-cart-session.js';
import { clientAddress, perAddress as perAddressLimits } from '../../core/client-address.js';
import { admitCartRequest } from './cart-caller.js';
import { ApiError } from '../../application/errors.js';
import { errorResponse } from '../errors.js';
import { assertChargeable } from '../../application/chargeable-amount.js';
import { processorCurrencies } from '../../core/checkout/processor-amounts.js';
import { cartTotal } from '../../core/money.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { IDEMPOTENCY_HEADER, readIdempotencyKey, REPLAYED_HEADER } from '../../application/carts/idempotency.js';
import type { MiddlewareHandler } from 'hono';
import type { ApiMetrics } from '../metrics.js';
import { enforceRateLimits } from './rate-limit.js';
import type { Limit } from '../../core/rate-limits.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { CART_MOUNT, CREATE_CART } from './cart-paths.js';

/** `POST /v2/public/api/cart/` — the one public operation: create a cart session. */
export function cartRoutes(
  deps: CartSessionDeps & {
    cartsCreated: Pick<ApiMetrics['cartsCreated'], 'inc'>;
    /** Refuses a new session while the process is saturated (api/admission/create-cart-admission.ts). */
    admission: MiddlewareHandler;
  },
) {
  const { config, db, logger } = deps;
  const { rateLimit } = config;
  const app = new Hono();
  const currencies = processorCurrencies(config.payments.processor);

  /** One limit per client address, and for an IPv6 client its /48's, a few clients' worth. */
  const perAddress = (bucket: string, address: string, max: number): Limit[] =>
    perAddressLimits(bucket, address, max, rateLimit.windowSeconds, rateLimit.ipv6Clients48);

  /** Set once the request reached the admission statement, which counts the client with the rest. */
  const admissionReached = new WeakSet<object>();

  serve(
    app,
    CART_MOUNT,
    CREATE_CART,
    // First, before anything is read or counted: a shed request costs the saturated process next to nothing.
    deps.admission,
    // Every request counts against its client's limit, bad ones too, and a client over it is answered
    // 429 whatever its body. A request refused before the admission statement (its body, its cart) is
    // counted here, on its own; the others were counted in that statement, in the one round trip.
    async (c, next) => {
      await next();
      if (admissionReached.has(c.req.raw)) return;
      try {
        await enforceRateLimits(db, c.get('logger') ?? logger, perAddress('client', clientAddress(c, config.trustedProxyHops), rateLimit.perClient));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        c.res = errorResponse(c, err);
      }
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
      admissionReached.add(c.req.raw);
      const caller = await admitCartRequest(
        { config, db, logger: log },
        {
          platformUuid: request.cartObject.store.platformUuid,
          address,
          authorization: c.req.header('authorization'),
          clientLimits: perAddress('client', address, rateLimit.perClient),
          // The merchant's own requests have a merchant-wide counter of their own, which no public request reaches.
          keyedLimits: [{ bucket: `platform-key:${platform}`, max: rateLimit.perPlatform, windowSeconds: rateLimit.windowSeconds }],
          // This address's share of the merchant first: a stranger who knows the public platformUuid runs
          // out here, long before the merchant-wide ceiling of public requests, which its refused requests
          // never reach.
          publicLimits: [
            ...perAddress(`platform-client:${platform}`, address, rateLimit.perPlatformClient),
            { bucket: `platform:${platform}`, max: rateLimit.perPlatform, windowSeconds: rateLimit.windowSeconds },
          ],
        },
      );
      const outcome = await createCartSession({ ...deps, logger: log }, request, caller, { idempotencyKey });
      if (outcome.replayed) c.header(REPLAYED_HEADER, 'true');
      else deps.cartsCreated.inc({ environment: config.environment });
      return c.json(outcome.response);
    },
  );
  refuseOtherMethods(app, CART_MOUNT, CREATE_CART);
  return app;
}
