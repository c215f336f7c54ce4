import { Hono } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import { isDependencyUnavailable, serviceUnavailable } from '../dependency-errors.js';
import { merchantAuth } from './auth.js';

/** `/v2/merchant/…`: what a merchant does with its own API key. */
export function merchantRoutes(deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  const app = new Hono();
  app.use(async (_c, next) => {
    try {
      await next();
    } catch (err) {
      if (isDependencyUnavailable(err)) throw serviceUnavailable();
      throw err;
    }
  });
  app.use(merchantAuth({ db, environment: config.environment }));

  app.get('/me', async (c) => {
    const m = await getMerchant(db, c.get('merchant').platformUuid);
    return c.json({
      platformUuid: m.platformUuid,
      name: m.name,
      environment: m.environment,
      webhookUrl: m.webhookUrl,
      domains: m.domains,
      requireApiKeyForCarts: m.requireApiKeyForCarts,
    });
  });
  return app;
}
