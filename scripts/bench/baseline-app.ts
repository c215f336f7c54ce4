import { Hono } from 'hono';
import { onError } from '../../api/errors.js';
import { readValidJson } from '../../api/json-body.js';
import { newCartId } from '../../core/checkout/cart-id.js';
import { insertCart } from '../../core/checkout/cart-ledger.js';
import { createCartRequestSchema, type CreateCartResponse } from '../../core/checkout/cart-schema.js';
import { runHttpService, type HttpServiceDeps } from '../../core/http-service.js';
import { findActiveMerchant } from '../../core/merchants/merchant-store.js';
import { cartTotal } from '../../core/money.js';

/**
 * What a naive, non-durable create-cart gives on this machine: the real schema, merchant lookup and
 * ledger insert, and no workflow. Bench only: nothing would ever expire or pay these carts.
 */
function createBaselineApp({ config, db }: HttpServiceDeps) {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.post('/v2/public/api/cart/', async (c) => {
    const request = await readValidJson(c, createCartRequestSchema);
    const { store, cart } = request.cartObject;
    const merchant = await findActiveMerchant(db, store.platformUuid, config.environment);
    if (!merchant) return c.json({ code: 'UNKNOWN_PLATFORM' }, 422);
    const cartId = newCartId();
    const createdAt = new Date();
    const expiresOn = new Date(createdAt.getTime() + config.sessionLifetimeMs).toISOString();
    await insertCart(db, {
      cartId,
      platformUuid: store.platformUuid,
      environment: config.environment,
      merchantName: merchant.name,
      currency: cart.currency,
      amount: cartTotal(cart.items),
      store,
      cart,
      expiresOn,
      createdAt,
      createdWith: 'public',
    });
    const response: CreateCartResponse = { code: 'SUCCESS', message: 'Cart created', data: { cartId, cartData: request.cartObject, expiresOn } };
    return c.json(response);
  });
  app.onError(onError);
  return app;
}

await runHttpService({ name: 'baseline', port: (config) => config.apiPort, createApp: createBaselineApp });
