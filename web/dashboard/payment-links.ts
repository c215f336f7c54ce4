import { Hono, type Context } from 'hono';
import { createPaymentLink } from '../../application/links/create-payment-link.js';
import { ApiError } from '../../application/errors.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { PAYMENT_LINK_ID_PATTERN } from '../../core/links/payment-link-schema.js';
import { closePaymentLink } from '../../core/links/payment-links.js';
import { merchantPaymentLinks } from '../../core/links/payment-link-views.js';
import { getMerchant } from '../../core/merchants/merchants.js';
import type { DashboardEnv } from './env.js';
import { dashboardAudit } from './audit.js';
import { defaultLinkForm, linkFormErrors, linkRequestOf, readLinkForm } from './payment-link-form.js';
import { partOrPage } from './respond.js';
import { paymentLinksPage, paymentLinksView, type PaymentLinksResult } from './views/payment-links.js';

type C = Context<DashboardEnv>;

/**
 * A merchant's payment links (docs/payment-links.md): the list with each link's QR code, a form that
 * creates one through application/links/create-payment-link.ts (the merchant API's own checks), and
 * closing one through core/links/payment-links.ts, as the API's PATCH does. The signed-in merchant's only.
 */
export function paymentLinkPageRoutes(deps: { config: Config; db: Db }) {
  const { config, db } = deps;
  const app = new Hono<DashboardEnv>();
  const audit = dashboardAudit(deps);
  const owner = (c: C) => {
    const merchant = c.get('merchant')!;
    return { platformUuid: merchant.platformUuid, environment: merchant.environment };
  };

  async function respond(c: C, result: PaymentLinksResult = {}, status: 200 | 201 | 404 | 422 = 200) {
    const [merchant, links] = await Promise.all([getMerchant(db, owner(c).platformUuid), merchantPaymentLinks(db, owner(c), config.checkoutBaseUrl)]);
    // A refused form keeps what was typed; otherwise a fresh one, defaulted from the merchant's domains and newest link.
    const view = { links, csrf: c.get('csrf'), result, form: result.form ?? defaultLinkForm(merchant, links[0]) };
    return c.html(
      await partOrPage(
        c,
        () => paymentLinksView(view),
        () => paymentLinksPage({ ...view, who: merchant.name }),
      ),
      status,
    );
  }

  app.get('/payment-links', (c) => respond(c));

  app.post('/payment-links', async (c) => {
    const form = readLinkForm(await c.req.parseBody());
    const merchant = await getMerchant(db, owner(c).platformUuid);
    const built = linkRequestOf(form, merchant);
    if ('errors' in built) return respond(c, { form, errors: built.errors }, 422);
    try {
      const created = await createPaymentLink(deps, owner(c), built.request);
      await audit(c, owner(c).platformUuid, { action: 'payment_link.create', target: `payment_link:${created.id}` });
      return await respond(c, { created: created.url }, 201);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code === 'SERVICE_UNAVAILABLE') throw err;
      return respond(c, { form, errors: linkFormErrors(err) }, 422);
    }
  });

  app.post('/payment-links/:id/close', async (c) => {
    const id = c.req.param('id');
    const closed = PAYMENT_LINK_ID_PATTERN.test(id) ? await closePaymentLink(db, owner(c), id) : undefined;
    if (!closed) return respond(c, { closeError: 'No such payment link among yours.' }, 404);
    await audit(c, owner(c).platformUuid, { action: 'payment_link.close', target: `payment_link:${id}` });
    return respond(c, { closed: id });
  });

  return app;
}
