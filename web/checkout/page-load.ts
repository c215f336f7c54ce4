import { Hono } from 'hono';
import { isHtmx } from '../htmx.js';
import type { WebEnv } from '../security-headers.js';
import type { PageContext } from './context.js';
import { closedPage, embeddedEnd, expired, pageUrl } from './leave.js';
import type { CheckoutSession } from './load-session.js';
import { notFoundPage } from './render.js';

/** The page itself, at `/?token=<cartId>`, and the status it polls while a payment is processing. */
export function pageLoadRoutes(page: PageContext) {
  const { logger } = page;
  const app = new Hono<WebEnv>();

  app.get('/', async (c) => {
    const session = await page.loadSession(c, c.req.query('token') ?? '');
    if (!session) return notFoundPage(c);
    if (session.state.step === 'authenticating' && session.state.authentication && page.holds(c, session))
      return c.redirect(session.state.authentication.redirectUrl, 303);
    if (expired(session) || session.state.step === 'done') return embeddedEnd(c, session) ?? closedPage(c, session);
    if (!session.pageOpened) await page.reached(session, 'page_opened');
    return page.render(c, session);
  });

  /** Polled every second while the payment is processing; the answer that finds an outcome redirects. */
  app.get('/status', async (c) => {
    const token = c.req.query('token') ?? '';
    let session: CheckoutSession | undefined;
    try {
      session = await page.loadSession(c, token);
    } catch (err) {
      if (!isHtmx(c)) throw err;
      // Nothing swapped: the polling element stays and asks again in a second.
      logger.warn({ err, cartId: token }, 'payment status poll failed');
      return c.body(null, 204);
    }
    if (!session) return notFoundPage(c);
    const left = await page.leave(c, session);
    if (left) return left;
    if (session.state.step !== 'processing' && !isHtmx(c)) return c.redirect(pageUrl(session), 303);
    return page.render(c, session);
  });

  return app;
}
