import { Hono } from 'hono';
import type { Db } from '../../core/db/client.js';
import type { Temporal } from '../../core/temporal.js';
import { loadCheckoutSession } from './load-session.js';
import { checkoutPage, messagePage } from './views.js';

/** The hosted checkout, at `{CHECKOUT_BASE_URL}/?token=<cartId>`. */
export function checkoutRoutes(deps: { db: Db; temporal: Temporal }) {
  return new Hono().get('/', async (c) => {
    const token = c.req.query('token') ?? '';
    const session = await loadCheckoutSession(deps, token);
    if (!session) {
      return c.html(messagePage('Checkout not found', 'This checkout link is not valid. Go back to the store and start the payment again.'), 404);
    }
    return c.html(checkoutPage(session));
  });
}
