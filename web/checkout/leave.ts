import { waitForFirstDeliveryAttempt } from '../../core/webhooks/first-delivery.js';
import { isHtmx } from '../htmx.js';
import { t } from '../i18n/index.js';
import { isEmbedded } from './embedding.js';
import type { CheckoutSession } from './load-session.js';
import { merchantReturnUrl, SUCCESS_STATUSES } from './merchant-redirect.js';
import { locale, type C, type Extras, type PageBase } from './page-base.js';
import type { Rendering } from './render.js';
import { embeddedEndPage } from './views/embedded-end.js';
import { messagePage } from './views/layout.js';

const SUCCESS_REDIRECT_WEBHOOK_WAIT_MS = 3_000;

export const pageUrl = (session: CheckoutSession) => `/?token=${session.cartId}`;
/** The embedded page ends on a page of ours that hands the merchant's page the way back (views/embedded-end.ts). */
const embeddedPageUrl = (session: CheckoutSession) => `/?token=${session.cartId}&embed=1`;
export const statusUrl = (session: CheckoutSession) => `/status?token=${session.cartId}`;
export const expired = ({ state }: CheckoutSession) =>
  state.status === 'abandoned' || (state.status === 'pending' && Date.parse(state.expiresOn) <= Date.now());
/** The merchant ended the session (its expire endpoint): the customer is told so before going back. */
const closedByStore = ({ state }: CheckoutSession) => state.status === 'cancelled' && state.cancelledBy === 'merchant';

export function redirect(c: C, url: string) {
  if (!isHtmx(c)) return c.redirect(url, 303);
  c.header('HX-Redirect', url);
  return c.body(null, 200);
}

/** Where the page goes once a session has moved: away from it, or on to its next step. */
export function leaving(page: PageBase & Rendering) {
  /**
   * A session with an outcome sends the customer back to the merchant; an expired one to its 410 page.
   * After a payment (or a manual-capture authorization, also announced by `order_created`), the first
   * `order_created` delivery gets a bounded head start, so the merchant's success page usually already
   * knows the order; the redirect never waits longer, whatever the merchant does.
   */
  async function leave(c: C, session: CheckoutSession) {
    // At the bank's 3-D Secure challenge: a plain redirect there (HX-Redirect for htmx), no JavaScript needed.
    if (session.state.step === 'authenticating' && session.state.authentication && page.holds(c, session))
      return redirect(c, session.state.authentication.redirectUrl);
    const back = closedByStore(session) ? undefined : merchantReturnUrl(session, session.state.status);
    if (back) {
      if (SUCCESS_STATUSES.has(session.state.status))
        await waitForFirstDeliveryAttempt(page.deps.db, session.cartId, 'order_created', SUCCESS_REDIRECT_WEBHOOK_WAIT_MS);
      return redirect(c, isEmbedded(c) ? embeddedPageUrl(session) : back);
    }
    if (expired(session) || (session.state.step === 'done' && session.state.status !== 'processing')) return redirect(c, pageUrl(session));
    return undefined;
  }

  /** After an accepted action: htmx gets the next panel in place, a plain form post the next page. */
  function moveOn(c: C, session: CheckoutSession, extras: Extras = {}) {
    if (isHtmx(c)) return page.render(c, session, extras);
    return c.redirect(session.state.step === 'processing' ? statusUrl(session) : pageUrl(session), 303);
  }

  return { leave, moveOn };
}

export type Leaving = ReturnType<typeof leaving>;

/** A finished session in the merchant's frame: the page that sends the customer back at the top level, when there is a way back. */
export function embeddedEnd(c: C, session: CheckoutSession) {
  const back = closedByStore(session) ? undefined : merchantReturnUrl(session, session.state.status);
  if (!back || !isEmbedded(c)) return undefined;
  const { cartId, state, store } = session;
  return c.html(embeddedEndPage({ locale: locale(c), store: store.name, cartId, status: state.status, returnUrl: back }));
}

/**
 * Expired, closed by the store, or already used: this link cannot take a payment any more. A session
 * the store closed links to its failureUrl (with the cartId), where a customer who did not cancel
 * expects the merchant to say why (sold out, order changed) and what to do next; the store's home
 * page would lose that thread.
 */
export function closedPage(c: C, session: CheckoutSession) {
  const lang = locale(c);
  const label = t(lang, 'common.returnTo', { store: session.store.name });
  if (closedByStore(session)) {
    const title = t(lang, 'closedByStore.title');
    const message = t(lang, 'closedByStore.message', { store: session.store.name });
    return c.html(messagePage({ locale: lang, title, message, link: { href: merchantReturnUrl(session, 'cancelled')!, label } }), 410);
  }
  const back = { href: session.store.url, label };
  const page = expired(session) ? 'expired' : 'used';
  return c.html(messagePage({ locale: lang, title: t(lang, `${page}.title`), message: t(lang, `${page}.message`), link: back }), 410);
}
