import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import type { Temporal } from '../core/temporal.js';
import { checkoutRoutes } from './checkout/routes.js';
import { messagePage } from './checkout/views.js';
import { securityHeaders } from './security-headers.js';

export interface WebDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
}

const require = createRequire(import.meta.url);
// Served from our own origin: no third-party script runs next to a card form.
const ASSETS: Record<string, { body: string; type: string }> = {
  'htmx.min.js': { body: readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8'), type: 'text/javascript; charset=utf-8' },
  'checkout.css': { body: readFileSync(new URL('./assets/checkout.css', import.meta.url), 'utf8'), type: 'text/css; charset=utf-8' },
};

/** The customer-facing checkout site, on its own origin. */
export function createWebApp(deps: WebDeps) {
  const app = new Hono();
  app.use(securityHeaders);
  app.get('/assets/:name', (c) => {
    const asset = ASSETS[c.req.param('name')];
    if (!asset) return c.notFound();
    c.header('Content-Type', asset.type);
    return c.body(asset.body);
  });
  app.route('/', checkoutRoutes(deps));
  app.notFound((c) => c.html(messagePage('Page not found', 'There is nothing at this address.'), 404));
  app.onError((err, c) => {
    deps.logger.error({ err }, 'checkout page error');
    return c.html(messagePage('Something went wrong', 'We could not load this checkout. Please try again in a moment.'), 503);
  });
  return app;
}
