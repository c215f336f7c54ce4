import { Hono } from 'hono';
import { cartOfReturnToken, THREE_D_SECURE_RETURN_PATH } from '../../core/checkout/three-d-secure.js';
import { t } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import type { PageContext } from './context.js';
import { statusUrl } from './leave.js';
import { locale } from './page-base.js';
import { notFoundPage } from './render.js';
import { messagePage } from './views/layout.js';

/**
 * The cardholder's bank sends them back here, by GET or by a form post from its own origin (so mounted
 * before the origin check, routes.ts), with the signed token the worker gave the processor. The session
 * asks the processor how the challenge ended; the update's fixed id makes a return posted twice one
 * completion. An answer slower than the page's deadline lands on the status page, which polls for the outcome.
 */
export function threeDSecureReturnRoutes(page: PageContext) {
  const { config, logger } = page;
  const app = new Hono<WebEnv>();

  app.on(['GET', 'POST'], THREE_D_SECURE_RETURN_PATH, async (c) => {
    const cartId = cartOfReturnToken(config.keyring, c.req.query('token'));
    if (!cartId) {
      const lang = locale(c);
      return c.html(messagePage({ locale: lang, title: t(lang, 'threeDSecure.unknownTitle'), message: t(lang, 'threeDSecure.unknownMessage') }), 404);
    }
    try {
      const result = await page.actions.threeDSecureReturn(cartId);
      logger.info({ cartId, accepted: result.accepted }, '3-D Secure return');
    } catch (err) {
      logger.warn({ err, cartId }, '3-D Secure return not confirmed in time: the status page follows it');
      return c.redirect(`/status?token=${cartId}`, 303);
    }
    const session = await page.loadSession(c, cartId);
    if (!session) return notFoundPage(c);
    return (await page.leave(c, session)) ?? c.redirect(statusUrl(session), 303);
  });

  return app;
}
