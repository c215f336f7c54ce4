import { Hono } from 'hono';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import type { Temporal } from '../core/temporal/connection.js';
import type { postWebhook } from '../core/webhooks/http-post.js';
import { onError, onNotFound } from './errors.js';
import { createApiMetrics } from './metrics.js';
import { operatorAuth } from './operator/auth.js';
import { operatorAttempts } from '../core/operator-attempts.js';
import { refuseControlCharacters } from './middleware/control-characters.js';
import { requestContext } from './middleware/request-context.js';
import { strictTransportSecurity } from './middleware/strict-transport-security.js';
import { createCartAdmission } from './admission/create-cart-admission.js';
import { CART_MOUNT } from './carts/cart-paths.js';
import { cartRoutes } from './carts/routes.js';
import { codecRoutes } from './codec/routes.js';
import { CURRENCIES_MOUNT } from './currencies/currency-paths.js';
import { currencyRoutes } from './currencies/routes.js';
import { docsRoutes } from './docs/routes.js';
import { healthRoutes } from './health/routes.js';
import { MERCHANT_MOUNT } from './merchant/mount.js';
import { merchantRoutes } from './merchant/routes.js';
import { operatorRoutes } from './operator/routes.js';
import { PROCESSOR_EVENTS_MOUNT, processorEventRoutes } from './processor-events/routes.js';
import { SANDBOX_MOUNT } from './sandbox/mount.js';
import { sandboxRoutes } from './sandbox/routes.js';

export interface ApiDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
  /** How a replay sent at once posts (core/webhooks/http-post.ts unless a production test must reach a receiver on this machine). */
  postWebhook?: typeof postWebhook;
}

/** The merchant-facing API, built from its dependencies so tests can assemble it without globals. */
export function createApiApp(deps: ApiDeps) {
  const metrics = createApiMetrics();
  const app = new Hono({ strict: false });
  app.use(strictTransportSecurity({ production: deps.config.environment === 'production' }));
  app.use(requestContext(deps.logger));
  app.use(metrics.middleware);
  app.use(refuseControlCharacters());
  app.route('/', healthRoutes(deps));
  // For the operators' Prometheus, with its own scrape token (never OPERATOR_TOKEN): this API faces the internet.
  app.get('/metrics', operatorAuth(deps.config.metricsToken, { attempts: operatorAttempts(deps.config, deps.db), setting: 'METRICS_TOKEN' }), async (c) =>
    c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType }),
  );
  const admission = createCartAdmission({ config: deps.config, logger: deps.logger, shed: metrics.cartsShed });
  app.route(CART_MOUNT, cartRoutes({ ...deps, cartsCreated: metrics.cartsCreated, admission }));
  app.route(CURRENCIES_MOUNT, currencyRoutes(deps));
  app.route(MERCHANT_MOUNT, merchantRoutes({ ...deps, deliveryMetrics: metrics.delivery }));
  // Production has no sandbox helpers: every /v2/sandbox/ path is a 404 there.
  if (deps.config.environment !== 'production') app.route(SANDBOX_MOUNT, sandboxRoutes(deps));
  app.route('/operator', operatorRoutes({ ...deps, deliveryMetrics: metrics.delivery }));
  app.route('/codec', codecRoutes(deps));
  app.route(PROCESSOR_EVENTS_MOUNT, processorEventRoutes({ ...deps, processorEvents: metrics.processorEvents }));
  app.route('/', docsRoutes(deps));
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
