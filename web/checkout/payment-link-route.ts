import { Hono, type Context } from 'hono';
import { createCartSession } from '../../application/carts/create-cart-session.js';
import { ApiError } from '../../application/errors.js';
import { clientAddress, perAddress } from '../../core/client-address.js';
import { PAYMENT_LINK_ID_PATTERN } from '../../core/links/payment-link-schema.js';
import { mintRefusal } from '../../core/links/link-uses.js';
import { findPaymentLink, type PaymentLinkRow } from '../../core/links/payment-links.js';
import { findActiveMerchant } from '../../core/merchants/merchant-store.js';
import { countHitsInOrder, pruneEndedWindows } from '../../core/rate-limits.js';
import { negotiateLocale, t } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import type { CheckoutDeps } from './page-base.js';
import { messagePage } from './views/layout.js';

type C = Context<WebEnv>;

/**
 * `GET /l/<id>`: a payment link's visit (docs/payment-links.md). Each visit that is let through mints
 * a session of its own from the link's cartObject, through create-cart's own path (ledger row,
 * workflow start, compensation: application/carts/create-cart-session.ts), marked `createdWith: api_key` since
 * the merchant made the link with its key, and carrying the link's id; then sends the customer to the
 * page of that session. A link that is closed, past expiresAt or with all its maxUses held (paid, or
 * being paid: core/links/link-uses.ts) answers 410.
 */
export function paymentLinkRoutes(deps: CheckoutDeps) {
  const { config, db, logger } = deps;
  const app = new Hono<WebEnv>();

  /** The customer's language, as the page picks it: the one asked for, else the link's cart's country's. */
  const localeFor = (c: C, link?: PaymentLinkRow) =>
    !c.get('localeAsked') && link ? negotiateLocale({ country: link.cartObject.cart.country }) : (c.get('locale') ?? negotiateLocale({}));

  function unavailable(c: C, link: PaymentLinkRow) {
    const lang = localeFor(c, link);
    const { store } = link.cartObject;
    const page = messagePage({
      locale: lang,
      title: t(lang, 'paymentLink.closedTitle'),
      message: t(lang, 'paymentLink.closedMessage', { store: store.name }),
      link: { href: store.url, label: t(lang, 'common.returnTo', { store: store.name }) },
    });
    return c.html(page, 410);
  }

  function notFound(c: C) {
    const lang = localeFor(c);
    return c.html(messagePage({ locale: lang, title: t(lang, 'notFound.title'), message: t(lang, 'notFound.message') }), 404);
  }

  /**
   * Per client address first (and an IPv6 client's /48), then per link: one client's refused visits
   * never reach the link's counter, so a stranger cannot use up a link's visits for everyone.
   */
  async function refusedVisit(c: C, id: string): Promise<number | undefined> {
    const { windowSeconds, linkVisitsPerClient, linkVisitsPerLink, ipv6Clients48 } = config.rateLimit;
    const counted = await countHitsInOrder(db, [
      ...perAddress('link-client', clientAddress(c, config.trustedProxyHops), linkVisitsPerClient, windowSeconds, ipv6Clients48),
      { bucket: `link:${id}`, max: linkVisitsPerLink, windowSeconds },
    ]);
    if (counted.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    return counted.refused?.retryAfterSeconds;
  }

  app.get('/l/:id', async (c) => {
    const id = c.req.param('id');
    if (!PAYMENT_LINK_ID_PATTERN.test(id)) return notFound(c);
    // Counted before the link is read: a flood of visits, of any id, costs one counter update each.
    const retryAfter = await refusedVisit(c, id);
    if (retryAfter !== undefined) {
      const lang = localeFor(c);
      logger.warn({ paymentLinkId: id }, 'payment link visit refused: visit limit reached');
      c.header('Retry-After', String(retryAfter));
      const message = t(lang, 'tooMany.message', { minutes: Math.max(1, Math.ceil(retryAfter / 60)) });
      return c.html(messagePage({ locale: lang, title: t(lang, 'tooMany.title'), message }), 429);
    }
    const link = await findPaymentLink(db, config.environment, id);
    if (!link) return notFound(c);
    const refusal = await mintRefusal(db, id);
    const merchant = refusal ? undefined : await findActiveMerchant(db, link.platformUuid, link.environment);
    if (!merchant) {
      logger.info({ paymentLinkId: id, status: refusal ?? 'open' }, 'payment link visit refused: the link no longer opens sessions');
      return unavailable(c, link);
    }
    const address = clientAddress(c, config.trustedProxyHops);
    const caller = { platformUuid: link.platformUuid, merchant, createdWith: 'api_key' as const, address };
    try {
      const { response } = await createCartSession(deps, { cartObject: link.cartObject }, caller, { paymentLinkId: id });
      logger.info({ paymentLinkId: id, cartId: response.data.cartId }, 'payment link visit: session created');
      return c.redirect(`/?token=${response.data.cartId}`, 303);
    } catch (err) {
      // The cart passed these checks when the link was made; a refusal now (a domain no longer
      // verified, a currency the processor dropped) means the link cannot sell as it is.
      if (!(err instanceof ApiError) || err.code === 'SERVICE_UNAVAILABLE') throw err;
      logger.warn({ paymentLinkId: id, code: err.code, errors: err.errors }, 'payment link visit refused: its cart is no longer accepted');
      return unavailable(c, link);
    }
  });
  return app;
}
