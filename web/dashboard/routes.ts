import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf as originCheck } from 'hono/csrf';
import { html } from 'hono/html';
import { HTTPException } from 'hono/http-exception';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Temporal } from '../../core/temporal/connection.js';
import type { ReplaySender } from '../../core/webhooks/replay.js';
import { dashboardCsrf } from './csrf.js';
import type { DashboardEnv } from './env.js';
import { operatorRoutes } from './operator.js';
import { orderRoutes } from './orders.js';
import { paymentLinkPageRoutes } from './payment-links.js';
import { insightRoutes } from './insights.js';
import { pageIntegrityRoutes } from './page-integrity.js';
import { isHtmx } from '../htmx.js';
import { dashboardGuard } from './guard.js';
import { passkeyRoutes } from './passkeys.js';
import { emailCodeRoutes } from './email-code.js';
import { dashboardMailerFromConfig } from '../../core/people/mail/from-config.js';
import { operatorTokenRoutes } from './operator-tokens.js';
import { peopleRoutes } from './people.js';
import { dashboardSessions } from './session.js';
import { signInLimit } from './sign-in-limit.js';
import { signInRoutes } from './sign-in.js';
import { dashboardMessage, forbiddenPage, notFoundPage } from './views/layout.js';
import { settingsRoutes } from './settings.js';
import { apiKeyRoutes } from './api-keys.js';
import { auditRoutes } from './audit-log.js';
import { dashboardCodecRoutes, temporalUiProxy } from './temporal-ui.js';

const FORM_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * The dashboard, mounted at /dashboard on the checkout page's origin (web/app.ts): merchants (API key
 * or the CLI's sign-in link) see their insights and orders, refund, make and close payment links, and manage their webhooks; operators
 * (OPERATOR_TOKEN) manage every merchant and see every merchant's insights. The same CSP and headers as the checkout page
 * (web/security-headers.ts); every post must come from this origin and carry the form token.
 */
export function dashboardRoutes(deps: { config: Config; db: Db; temporal: Temporal } & ReplaySender) {
  const { config, logger } = deps;
  const sessions = dashboardSessions(config, deps.db);
  const mailer = dashboardMailerFromConfig(deps);
  const ownOrigin = new URL(config.checkoutBaseUrl).origin;
  const app = new Hono<DashboardEnv>();

  // The one guard, in front of everything: the role table says who may open each route (web/dashboard/access.ts).
  app.use(dashboardGuard({ sessions }));
  // The Temporal UI and its codec, for operators, before the form checks: the UI posts JSON of its own.
  app.route('/codec', dashboardCodecRoutes(config));
  if (config.temporalUiUpstream) app.route('/temporal', temporalUiProxy({ upstream: config.temporalUiUpstream }));

  app.use(originCheck({ origin: (origin, c) => origin === ownOrigin || origin === new URL(c.req.url).origin }));
  app.use(
    bodyLimit({
      maxSize: FORM_BODY_LIMIT_BYTES,
      onError: (c) => c.html(dashboardMessage('Too large', 'This form carries more than a dashboard form can.'), 413),
    }),
  );
  app.use(dashboardCsrf(deps));

  app.get('/', async (c) => {
    const session = await sessions.read(c);
    const start = !session
      ? '/dashboard/sign-in'
      : session.platformUuid
        ? session.role === 'analyst'
          ? '/dashboard/insights'
          : '/dashboard/orders'
        : '/dashboard/operator';
    return c.redirect(start, 303);
  });
  const limit = signInLimit(deps);
  app.route('/', signInRoutes({ ...deps, sessions, limit }));
  app.route('/', passkeyRoutes({ ...deps, sessions, limit }));
  app.route('/', emailCodeRoutes({ ...deps, sessions, limit, mailer }));

  app.route('/operator/insights', insightRoutes(deps, 'operator'));
  app.route('/operator/people', peopleRoutes({ ...deps, mailer, team: 'operators' }));
  app.route('/operator/tokens', operatorTokenRoutes(deps));
  app.route('/operator', auditRoutes(deps, 'operator'));
  app.route('/operator/integrity', pageIntegrityRoutes(deps));
  app.route('/operator', operatorRoutes(deps));

  app.route('/insights', insightRoutes(deps, 'merchant'));
  app.route('/people', peopleRoutes({ ...deps, mailer, team: 'merchant' }));
  app.route('/', orderRoutes(deps));
  app.route('/', paymentLinkPageRoutes(deps));
  app.route('/', settingsRoutes(deps));
  app.route('/', apiKeyRoutes(deps));
  app.route('/', auditRoutes(deps, 'merchant'));

  app.all('*', (c) => c.html(notFoundPage(), 404));
  app.onError((err, c) => {
    // hono/csrf's refusal of a post from another origin.
    if (err instanceof HTTPException && err.status === 403) return c.html(forbiddenPage(), 403);
    logger.error({ err, path: c.req.path }, 'dashboard error');
    const message = 'The dashboard cannot answer right now. Try again in a moment.';
    if (isHtmx(c)) return c.html(html`<p class="alert" role="alert">${message}</p>`, 503);
    return c.html(dashboardMessage('Something went wrong', message), 503);
  });
  return app;
}
