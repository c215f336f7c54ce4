import { Hono } from 'hono';
import { acceptedCurrencies } from '../../core/checkout/accepted-currencies.js';
import type { Config } from '../../core/config.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { CURRENCIES_MOUNT, LIST_CURRENCIES } from './currency-paths.js';

/** `GET /v2/public/api/currencies`: what the deployment's processor charges, fixed for the process's life. */
export function currencyRoutes(deps: { config: Config }) {
  const list = acceptedCurrencies(deps.config.payments.processor);
  const app = new Hono();
  serve(app, CURRENCIES_MOUNT, LIST_CURRENCIES, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    return c.json(list);
  });
  refuseOtherMethods(app, CURRENCIES_MOUNT, LIST_CURRENCIES);
  return app;
}
