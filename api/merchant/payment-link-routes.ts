import { Hono } from 'hono';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { createPaymentLinkSchema, PAYMENT_LINK_ID_PATTERN, PAYMENT_LINK_LIMITS, updatePaymentLinkSchema } from '../../core/links/payment-link-schema.js';
import { closePaymentLink } from '../../core/links/payment-links.js';
import { merchantPaymentLink, merchantPaymentLinks, withCounts } from '../../core/links/payment-link-views.js';
import { ApiError } from '../../application/errors.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import { MERCHANT_MOUNT } from './mount.js';
import { auditMerchantKey } from '../audit-entry.js';
import { CLOSE_PAYMENT_LINK, CREATE_PAYMENT_LINK, GET_PAYMENT_LINK, LIST_PAYMENT_LINKS, PAYMENT_LINK_PATCH_BYTES } from './payment-link-paths.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { createPaymentLink } from '../../application/links/create-payment-link.js';

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

  serve(app, MERCHANT_MOUNT, LIST_PAYMENT_LINKS, async (c) => c.json({ data: await merchantPaymentLinks(db, c.get('merchant'), config.checkoutBaseUrl) }));
  serve(app, MERCHANT_MOUNT, CREATE_PAYMENT_LINK, jsonBody(PAYMENT_LINK_LIMITS.bodyBytes), async (c) => {
    const body = await readValidJson(c, createPaymentLinkSchema);
    const link = await createPaymentLink(deps, c.get('merchant'), body);
    await auditMerchantKey(c, deps, { action: 'payment_link.create', target: `payment_link:${link.id}` });
    return c.json(link, 201);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, LIST_PAYMENT_LINKS, CREATE_PAYMENT_LINK);

  serve(app, MERCHANT_MOUNT, GET_PAYMENT_LINK, async (c) => {
    const id = linkId(c.req.param('id'));
    const link = await merchantPaymentLink(db, c.get('merchant'), id, config.checkoutBaseUrl);
    if (!link) throw paymentLinkNotFound(id);
    return c.json(link);
  });
  serve(app, MERCHANT_MOUNT, CLOSE_PAYMENT_LINK, jsonBody(PAYMENT_LINK_PATCH_BYTES), async (c) => {
    const id = linkId(c.req.param('id'));
    await readValidJson(c, updatePaymentLinkSchema);
    const closed = await closePaymentLink(db, c.get('merchant'), id);
    if (!closed) throw paymentLinkNotFound(id);
    await auditMerchantKey(c, deps, { action: 'payment_link.close', target: `payment_link:${id}` });
    return c.json(await withCounts(db, closed, config.checkoutBaseUrl));
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, GET_PAYMENT_LINK, CLOSE_PAYMENT_LINK);
  return app;
}
