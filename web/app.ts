import { Hono } from 'hono';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';
import { metricsTokenGuard } from '../core/operator-attempts.js';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import type { Temporal } from '../core/temporal/connection.js';
import type { postWebhook } from '../core/webhooks/http-post.js';
import { serveAsset } from './assets.js';
import { compressResponses } from './compression.js';
import { serveEmbedScript } from './embed-script.js';
import { checkoutRoutes } from './checkout/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { messagePage } from './checkout/views/layout.js';
import { isHtmx } from './htmx.js';
import { createWebMetrics } from './metrics.js';
import { cspReportRoutes } from './integrity/csp-report-route.js';
import { securityHeaders, type WebEnv } from './security-headers.js';
import { t } from './i18n/index.js';
import { requestLocale } from './i18n/request.js';

export interface WebDeps {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
  /** How the dashboard's replays sent at once post (core/webhooks/http-post.ts unless a production test must reach a receiver on this machine). */
  postWebhook?: typeof postWebhook;
}

/** The customer-facing checkout site, on its own origin, and the merchants' and operators' dashboard under /dashboard. */
export function createWebApp(deps: WebDeps) {
  const app = new Hono<WebEnv>();
  app.use(securityHeaders({ production: deps.config.environment === 'production', reportingApi: new URL(deps.config.checkoutBaseUrl).protocol === 'https:' }));
  app.use(compressResponses());
  app.get('/assets/:name', (c) => serveAsset(c, c.req.param('name')));
  app.get('/embed.js', serveEmbedScript);
  const metrics = createWebMetrics();
  app.route('/', cspReportRoutes({ ...deps, metrics }));
  // For the operators' Prometheus, with their token, as on the API; wrong tokens counted as there.
  app.get('/metrics', metricsTokenGuard(deps.config, deps.db), async (c) =>
    c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType }),
  );
  // Before the checkout's routes, whose middleware (locale, form checks) is the customer page's, not the dashboard's.
  app.route('/dashboard', dashboardRoutes({ ...deps, deliveryMetrics: metrics.delivery }));
  app.route('/', checkoutRoutes({ ...deps, metrics }));
  app.notFound((c) => {
    const lang = requestLocale(c);
    return c.html(messagePage({ locale: lang, title: t(lang, 'pageNotFound.title'), message: t(lang, 'pageNotFound.message') }), 404);
  });
  app.onError((err, c) => {
    const lang = requestLocale(c);
    if (err instanceof HTTPException && err.status === 403) {
      return c.html(messagePage({ locale: lang, title: t(lang, 'blocked.title'), message: t(lang, 'blocked.message') }), 403);
    }
    deps.logger.error({ err }, 'checkout page error');
    const message = t(lang, 'unavailable.message');
    if (isHtmx(c)) {
      return c.html(html`<section id="step" class="panel step"><p class="alert" role="alert">${message}</p></section>`, 503);
    }
    return c.html(messagePage({ locale: lang, title: t(lang, 'unavailable.title'), message }), 503);
  });
  return app;
}
