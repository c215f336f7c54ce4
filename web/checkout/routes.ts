import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf as originCheck } from 'hono/csrf';
import { t } from '../i18n/index.js';
import { requestLocale } from '../i18n/request.js';
import type { WebEnv } from '../security-headers.js';
import { cancelRoutes } from './cancel.js';
import { cardRoutes } from './card-step.js';
import { codeRoutes } from './code-step.js';
import { contactRoutes } from './contact-step.js';
import { pageContext } from './context.js';
import { checkoutLocale } from './locale.js';
import type { CheckoutDeps } from './page-base.js';
import { pageLoadRoutes } from './page-load.js';
import { paymentLinkRoutes } from './payment-link-route.js';
import { recoveryRoutes } from './recovery-route.js';
import { sandboxChallengeRoutes } from './sandbox-challenge.js';
import { savedCardRoutes } from './saved-cards.js';
import { threeDSecureReturnRoutes } from './three-d-secure-return.js';
import { messagePage } from './views/layout.js';

const FORM_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * The hosted checkout, at `{CHECKOUT_BASE_URL}/?token=<cartId>`. Every form posts normally without
 * JavaScript (answered with a redirect to the next page) and is swapped in place by htmx with it
 * (answered with the next step's panel, or an HX-Redirect). Each step's routes are a module of their
 * own; every form post goes through one action wrapper and its guards (action.ts).
 */
export function checkoutRoutes(deps: CheckoutDeps) {
  const page = pageContext(deps);
  const ownOrigin = new URL(deps.config.checkoutBaseUrl).origin;
  const app = new Hono<WebEnv>();

  app.use('*', checkoutLocale({ production: page.production }));
  // The bank's return is a form post from its own origin: it is mounted before the origin check.
  app.route('/', threeDSecureReturnRoutes(page));

  // Forms post only from our own page: the Origin (or Sec-Fetch-Site) must say so, and the body must
  // carry the double-submit token bound to this cart and this browser.
  app.use('*', originCheck({ origin: (origin, c) => origin === ownOrigin || origin === new URL(c.req.url).origin }));
  app.use(
    '*',
    bodyLimit({
      maxSize: FORM_BODY_LIMIT_BYTES,
      onError: (c) => {
        const lang = requestLocale(c as Context<WebEnv>);
        return c.html(messagePage({ locale: lang, title: t(lang, 'tooLarge.title'), message: t(lang, 'tooLarge.message') }), 413);
      },
    }),
  );

  if (!page.production) app.route('/', sandboxChallengeRoutes(deps));
  app.route('/', paymentLinkRoutes(deps));
  app.route('/', recoveryRoutes(deps));
  app.route('/', pageLoadRoutes(page));
  app.route('/', contactRoutes(page));
  app.route('/', codeRoutes(page));
  app.route('/', cardRoutes(page));
  app.route('/', savedCardRoutes(page));
  app.route('/', cancelRoutes(page));
  return app;
}
