import { getCookie, setCookie } from 'hono/cookie';
import { savedCardsOf } from '../../core/checkout/saved-cards.js';
import { generatedAssetRecorder } from '../../core/integrity/generated-assets.js';
import { brandStylesheetIntegrity, brandStylesheetPath } from '../assets.js';
import { CSRF_COOKIE, csrfToken, newCsrfNonce } from '../csrf.js';
import { isHtmx } from '../htmx.js';
import { t } from '../i18n/index.js';
import type { CheckoutSession } from './load-session.js';
import { FRAMED_COOKIE, isEmbedded } from './embedding.js';
import { merchantOrigins, merchantReturnUrl } from './merchant-redirect.js';
import { locale, offersSavedCards, type C, type Extras, type PageBase } from './page-base.js';
import { checkoutPage } from './views/checkout-page.js';
import { messagePage } from './views/layout.js';
import type { StepView } from './views/step-view.js';
import { stepPanel } from './views/steps.js';

const NONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The page's answers that show a step: the whole page, or the step's panel alone for htmx. */
export function rendering(page: PageBase) {
  const { config, deps } = page;
  // Recorded when a page first links a merchant's colour, not when anyone asks for a colour's file: every colour has one.
  const recordGenerated = generatedAssetRecorder(deps.db, deps.logger);

  /**
   * The browser's half of the double-submit pair: kept while it lasts, issued when missing. Strict on our
   * own page; the embedded page's is partitioned (embedding.ts), and the origin check still refuses
   * every post that does not come from our own page (routes.ts).
   */
  function csrfNonce(c: C): string {
    const existing = getCookie(c, CSRF_COOKIE);
    if (existing && NONCE_PATTERN.test(existing)) return existing;
    const nonce = newCsrfNonce();
    const site = isEmbedded(c) ? FRAMED_COOKIE : ({ secure: page.production, sameSite: 'Strict' } as const);
    setCookie(c, CSRF_COOKIE, nonce, { httpOnly: true, path: '/', maxAge: 2 * 60 * 60, ...site });
    return nonce;
  }

  async function render(c: C, session: CheckoutSession, extras: Extras = {}, status: 200 | 403 | 422 | 429 | 503 = 200) {
    const held = page.holds(c, session);
    const view: StepView = {
      session,
      locale: locale(c),
      csrf: csrfToken(page.csrfKey, session.cartId, csrfNonce(c)),
      sandbox: page.sandbox,
      ...(isEmbedded(c) ? { embedded: true as const } : {}),
      ...(held ? { ...stillConfirming(session), ...(await savedCardsView(session)) } : { rebind: true }),
      ...extras,
    };
    c.set('formActionOrigins', merchantOrigins(session));
    c.header('Vary', 'HX-Request');
    if (isHtmx(c)) return c.html(stepPanel(view), status);
    if (session.brandColour) recordGenerated(brandStylesheetPath(session.brandColour), brandStylesheetIntegrity(session.brandColour));
    return c.html(checkoutPage(view), status);
  }

  /**
   * Saved cards show at the card step alone, which only a verified session reaches, and only where the
   * merchant allows them: the verified contact's cards (by the key its session holds) and the consent.
   */
  async function savedCardsView(session: CheckoutSession): Promise<Pick<StepView, 'savedCards'>> {
    const contactKey = offersSavedCards(session);
    if (!contactKey) return {};
    return { savedCards: { cards: await savedCardsOf(deps.db, contactKey, config.payments.processor), offerSave: true } };
  }

  /** A payment past PAYMENT_CONFIRMATION_WAIT_SECONDS without an outcome: the way back is the failure page, where the webhook is awaited. */
  function stillConfirming({ state, cartId, cart }: CheckoutSession): Pick<StepView, 'stillConfirming'> {
    if (state.step !== 'processing' || !state.paymentSubmittedAt) return {};
    if (Date.now() - Date.parse(state.paymentSubmittedAt) <= config.paymentConfirmationWaitMs) return {};
    return { stillConfirming: { returnUrl: merchantReturnUrl({ cartId, cart }, 'failed')! } };
  }

  return { render };
}

export type Rendering = ReturnType<typeof rendering>;

export function notFoundPage(c: C) {
  const lang = locale(c);
  return c.html(messagePage({ locale: lang, title: t(lang, 'notFound.title'), message: t(lang, 'notFound.message') }), 404);
}
