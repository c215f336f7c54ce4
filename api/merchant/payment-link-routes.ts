import { Hono } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { createPaymentLinkSchema, PAYMENT_LINK_ID_PATTERN, PAYMENT_LINK_LIMITS, updatePaymentLinkSchema } from '../../core/links/payment-link-schema.js';
import { closePaymentLink } from '../../core/links/payment-links.js';
import { merchantPaymentLink, merchantPaymentLinks, withCounts } from '../../core/links/payment-link-views.js';
import { ApiError } from '../../application/errors.js';
import { methodNotAllowed } from '../errors.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { createPaymentLink } from '../../application/links/create-payment-link.js';

/** A PATCH body is one boolean: anything near this size is not one. */
export const PAYMENT_LINK_PATCH_BYTES = 1024;

export const paymentLinkNotFound = (id: string) =>
  new ApiError('NOT_FOUND', 'No payment link of yours in this environment has this id. List yours with GET /v2/merchant/payment-links.', [
    { path: 'id', message: `${id.length > 64 ? 'this value' : id} is not one of your payment links` },
  ]);

/** `/v2/merchant/payment-links…`: the merchant's payment links (docs/payment-links.md), mounted behind its API key (./routes.ts). */
export function paymentLinkRoutes(deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  const app = new Hono();
  const linkId = (id: string) => {
    if (!PAYMENT_LINK_ID_PATTERN.test(id)) throw paymentLinkNotFound(id);
    return id;
  };

  app.get('/', async (c) => c.json({ data: await merchantPaymentLinks(db, c.get('merchant'), config.checkoutBaseUrl) }));
  app.post('/', jsonBody(PAYMENT_LINK_LIMITS.bodyBytes), async (c) => {
    const body = await readValidJson(c, createPaymentLinkSchema);
    return c.json(await createPaymentLink(deps, c.get('merchant'), body), 201);
  });
  app.all('/', methodNotAllowed(['GET', 'POST']));

  app.get('/:id', async (c) => {
    const id = linkId(c.req.param('id'));
    const link = await merchantPaymentLink(db, c.get('merchant'), id, config.checkoutBaseUrl);
    if (!link) throw paymentLinkNotFound(id);
    return c.json(link);
  });
  app.patch('/:id', jsonBody(PAYMENT_LINK_PATCH_BYTES), async (c) => {
    const id = linkId(c.req.param('id'));
    await readValidJson(c, updatePaymentLinkSchema);
    const closed = await closePaymentLink(db, c.get('merchant'), id);
    if (!closed) throw paymentLinkNotFound(id);
    return c.json(await withCounts(db, closed, config.checkoutBaseUrl));
  });
  app.all('/:id', methodNotAllowed(['GET', 'PATCH']));
  return app;
}
