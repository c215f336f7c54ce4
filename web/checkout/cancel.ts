import { Hono } from 'hono';
import type { WebEnv } from '../security-headers.js';
import type { PageContext } from './context.js';

/** Cancel, on every step: the session ends and the customer goes back to the merchant's failureUrl. */
export function cancelRoutes(page: PageContext) {
  const app = new Hono<WebEnv>();
  app.post(
    '/cancel',
    page.action('cancel', async (c, session) => page.outcome(c, session, await page.actions.cancel(session), 'form')),
  );
  return app;
}
