import { Hono, type Context } from 'hono';
import { createCartSession } from '../../application/carts/create-cart-session.js';
import { ApiError } from '../../application/errors.js';
import { clientAddress, perAddress } from '../../core/client-address.js';
import { findRecoverySource, recoveryVisit, type RecoverySource } from '../../core/checkout/cart-recovery.js';
import { recoveryStanding } from '../../core/orders/recovery-standing.js';
import { RECOVERY_PATH, recoveredCartOf } from '../../core/checkout/recovery-token.js';
import { countHitsInOrder, pruneEndedWindows } from '../../core/rate-limits.js';
import { negotiateLocale, t, type MessageKey } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import type { CheckoutDeps } from './page-base.js';
import { messagePage } from './views/layout.js';

type C = Context<WebEnv>;

/** PostgreSQL's unique violation: here, `carts.recovered_from` (migration 030), a second visit that raced the first. */
const UNIQUE_VIOLATION = '23505';

/**
 * `GET /r/<token>`: an abandoned cart's recovery link (docs/abandoned-cart-recovery.md). The first
 * visit mints a new session of the same store and cart through create-cart's own path (ledger row,
 * workflow start, compensation: application/carts/create-cart-session.ts), keeping the abandoned cart's
 * `createdWith` and its payment link (held to that link's limits: core/links/link-uses.ts) and recording `recoveredFrom`; later visits go to that same session while it is open.
 * An expired link answers 410; a token we did not seal, or for a cart with no recovery, 404.
 */
export function recoveryRoutes(deps: CheckoutDeps) {
  const { config, db, logger } = deps;
  const app = new Hono<WebEnv>();

  /** The customer's language, as the page picks it: the one asked for, else the cart's country's. */
  const localeFor = (c: C, source?: RecoverySource) =>
    !c.get('localeAsked') && source ? negotiateLocale({ country: source.cart.country }) : (c.get('locale') ?? negotiateLocale({}));

  function page(c: C, status: 404 | 410 | 429, title: MessageKey, message: string, source?: RecoverySource) {
    const lang = localeFor(c, source);
    const link = source ? { href: source.store.url, label: t(lang, 'common.returnTo', { store: source.store.name }) } : undefined;
    return c.html(messagePage({ locale: lang, title: t(lang, title), message, ...(link ? { link } : {}) }), status);
  }
  const notFound = (c: C) => page(c, 404, 'notFound.title', t(localeFor(c), 'notFound.message'));
  const storeMessage = (c: C, source: RecoverySource, key: MessageKey) => t(localeFor(c, source), key, { store: source.store.name });
  const closed = (c: C, source: RecoverySource) => page(c, 410, 'recovery.closedTitle', storeMessage(c, source, 'recovery.closedMessage'), source);

  /** Per client address (and an IPv6 client's /48), with the payment links' allowance, counted apart from theirs. */
  async function refusedVisit(c: C): Promise<number | undefined> {
    const { windowSeconds, linkVisitsPerClient, ipv6Clients48 } = config.rateLimit;
    const counted = await countHitsInOrder(
      db,
      perAddress('recovery-client', clientAddress(c, config.trustedProxyHops), linkVisitsPerClient, windowSeconds, ipv6Clients48),
    );
    if (counted.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    return counted.refused?.retryAfterSeconds;
  }

  /** The first visit's session, made from the abandoned cart as its row recorded it. */
  async function recover(c: C, source: RecoverySource) {
    const standing = await recoveryStanding(db, source);
    if (!standing.recovers && standing.why === 'link_unavailable') {
      logger.info(
        { recoveredFrom: source.cartId, paymentLinkId: source.paymentLinkId, refusal: standing.linkRefusal },
        'recovery link visit refused: its payment link no longer sells',
      );
      return page(c, 410, 'paymentLink.closedTitle', storeMessage(c, source, 'paymentLink.closedMessage'), source);
    }
    if (!standing.recovers) {
      logger.info(
        { recoveredFrom: source.cartId, createdWith: source.createdWith },
        'recovery link visit refused: the merchant is inactive or now requires its API key',
      );
      return closed(c, source);
    }
    const { merchant } = standing;
    const caller = { platformUuid: source.platformUuid, merchant, createdWith: source.createdWith, address: clientAddress(c, config.trustedProxyHops) };
    try {
      const { response } = await createCartSession(deps, { cartObject: { store: source.store, cart: source.cart } }, caller, {
        recoveredFrom: source.cartId,
        ...(source.paymentLinkId ? { paymentLinkId: source.paymentLinkId } : {}),
      });
      logger.info({ recoveredFrom: source.cartId, cartId: response.data.cartId }, 'recovery link visit: session created');
      return c.redirect(`/?token=${response.data.cartId}`, 303);
    } catch (err) {
      if ((err as { code?: unknown }).code === UNIQUE_VIOLATION) {
        // Another visit made the session between the read and the insert: go where it went.
        const now = await findRecoverySource(db, config.environment, source.cartId);
        return now ? answer(c, now) : notFound(c);
      }
      // A cart refused now (a domain no longer verified, a currency the processor dropped) cannot sell as it is.
      if (!(err instanceof ApiError) || err.code === 'SERVICE_UNAVAILABLE') throw err;
      logger.warn({ recoveredFrom: source.cartId, code: err.code, errors: err.errors }, 'recovery link visit refused: its cart is no longer accepted');
      return closed(c, source);
    }
  }

  async function answer(c: C, source: RecoverySource): Promise<Response> {
    const visit = recoveryVisit(source);
    switch (visit.to) {
      case 'new':
        return recover(c, source);
      case 'open':
        return c.redirect(`/?token=${visit.cartId}`, 303);
      case 'paid':
        return page(c, 410, 'recovery.paidTitle', storeMessage(c, source, 'recovery.paidMessage'), source);
      case 'closed':
        return closed(c, source);
    }
  }

  app.get(`${RECOVERY_PATH}/:token`, async (c) => {
    // Counted before the token is opened: a flood of visits, of any token, costs one counter update each.
    const retryAfter = await refusedVisit(c);
    if (retryAfter !== undefined) {
      logger.warn('recovery link visit refused: visit limit reached');
      c.header('Retry-After', String(retryAfter));
      return page(c, 429, 'tooMany.title', t(localeFor(c), 'tooMany.message', { minutes: Math.max(1, Math.ceil(retryAfter / 60)) }));
    }
    const token = recoveredCartOf(config.keyring, c.req.param('token'), new Date());
    if (!token) return notFound(c);
    if (token.expired) return page(c, 410, 'recovery.expiredTitle', t(localeFor(c), 'recovery.expiredMessage'));
    const source = await findRecoverySource(db, config.environment, token.cartId);
    if (!source?.recoverable) return notFound(c);
    return answer(c, source);
  });
  return app;
}
