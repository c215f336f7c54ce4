import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { csrf as originCheck } from 'hono/csrf';
import { deleteCard, storeCard } from '../../core/checkout/card-vault.js';
import { findSavedCard, rekeySavedCards, removeSavedCards, savedCardsOf } from '../../core/checkout/saved-cards.js';
import { legacySavedCardContactKey, savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { SAVED_CARD_ID_PATTERN } from '../../core/checkout/saved-card-id.js';
import { startSavedCardRemoval } from '../../workflows/saved-card-removal/client.js';
import { bindBrowser, markCustomerStarted, recordFunnelStep, type RecordedFunnelStep } from '../../core/checkout/cart-ledger.js';
import { reserveLinkUse } from '../../core/links/link-uses.js';
import { checkCard, type CardErrorCode } from '../../core/checkout/cards.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { waitForFirstDeliveryAttempt } from '../../core/webhooks/first-delivery.js';
import { isHtmx } from '../htmx.js';
import { CSRF_COOKIE, CSRF_FIELD, csrfToken, csrfTokenValid, deriveCsrfKey, newCsrfNonce } from '../csrf.js';
import type { WebEnv } from '../security-headers.js';
import { customerActions, type ActionResult } from './customer-actions.js';
import { checkoutLimits, type OtpSendLimit } from './limits.js';
import { browserBinding } from './browser-binding.js';
import { loadCheckoutSession, queryState, type CheckoutSession } from './load-session.js';
import { merchantOrigins, merchantReturnUrl, SUCCESS_STATUSES } from './merchant-redirect.js';
import { checkoutPage } from './views/checkout-page.js';
import { sandboxChallengeRoutes } from './sandbox-challenge.js';
import { paymentLinkRoutes } from './payment-link-route.js';
import { recoveryRoutes } from './recovery-route.js';
import { cartOfReturnToken, THREE_D_SECURE_RETURN_PATH } from '../../core/checkout/three-d-secure.js';
import { messagePage } from './views/layout.js';
import { html } from 'hono/html';
import { stepPanel, type FieldName, type StepView } from './views/steps.js';
import { readContact } from '../../core/checkout/contact-input.js';
import { requestLocale } from '../i18n/request.js';
import { DEFAULT_LOCALE, LOCALE_COOKIE, askedLocale, isMessageKey, negotiateLocale, supportedLocale, t, type MessageKey } from '../i18n/index.js';
import type { CheckoutDeps } from './checkout-deps.js';

type C = Context<WebEnv>;
type Extras = Pick<StepView, 'errors' | 'notice' | 'values'>;

const FORM_BODY_LIMIT_BYTES = 16 * 1024;
const NONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;
const SUCCESS_REDIRECT_WEBHOOK_WAIT_MS = 3_000;
const LOCALE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/**
 * The hosted checkout, at `{CHECKOUT_BASE_URL}/?token=<cartId>`. Every form posts normally without
 * JavaScript (answered with a redirect to the next page) and is swapped in place by htmx with it
 * (answered with the next step's panel, or an HX-Redirect).
 */
export function checkoutRoutes(deps: CheckoutDeps) {
  const { config, logger } = deps;
  const production = config.environment === 'production';
  const sandbox = production ? undefined : { otp: config.sandboxOtp };
  const csrfKey = deriveCsrfKey(config.keyring);
  const actions = customerActions(deps.temporal, config);
  const limits = checkoutLimits(deps);
  const ownOrigin = new URL(config.checkoutBaseUrl).origin;
  const binding = browserBinding({ checkoutBaseUrl: config.checkoutBaseUrl });
  const app = new Hono<WebEnv>();

  /** The browser's half of the double-submit pair: kept while it lasts, issued when missing. */
  function csrfNonce(c: C): string {
    const existing = getCookie(c, CSRF_COOKIE);
    if (existing && NONCE_PATTERN.test(existing)) return existing;
    const nonce = newCsrfNonce();
    setCookie(c, CSRF_COOKIE, nonce, { httpOnly: true, secure: production, sameSite: 'Strict', path: '/', maxAge: 2 * 60 * 60 });
    return nonce;
  }

  /** Whether this browser may see and act on the session's step (web/checkout/browser-binding.ts): the one guard. */
  const holds = (c: C, session: CheckoutSession) => binding.holds(c, session.state.step, session.browserBinding);

  async function render(c: C, session: CheckoutSession, extras: Extras = {}, status: 200 | 403 | 422 | 429 | 503 = 200) {
    const held = holds(c, session);
    const view: StepView = {
      session,
      locale: locale(c),
      csrf: csrfToken(csrfKey, session.cartId, csrfNonce(c)),
      sandbox,
      ...(held ? { ...stillConfirming(session), ...(await savedCardsView(session)) } : { rebind: true }),
      ...extras,
    };
    c.set('formActionOrigins', merchantOrigins(session));
    c.header('Vary', 'HX-Request');
    return c.html(isHtmx(c) ? stepPanel(view) : checkoutPage(view), status);
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

  /** The verified contact's saved-card key, when this session may offer, save and charge saved cards. */
  function offersSavedCards({ state, savedCardsAllowed }: CheckoutSession): string | undefined {
    return state.step === 'card' && state.status === 'pending' && savedCardsAllowed ? state.cardKey : undefined;
  }

  /** A payment past PAYMENT_CONFIRMATION_WAIT_SECONDS without an outcome: the way back is the failure page, where the webhook is awaited. */
  function stillConfirming({ state, cartId, cart }: CheckoutSession): Pick<StepView, 'stillConfirming'> {
    if (state.step !== 'processing' || !state.paymentSubmittedAt) return {};
    if (Date.now() - Date.parse(state.paymentSubmittedAt) <= config.paymentConfirmationWaitMs) return {};
    return { stillConfirming: { returnUrl: merchantReturnUrl({ cartId, cart }, 'failed')! } };
  }

  function redirect(c: C, url: string) {
    if (!isHtmx(c)) return c.redirect(url, 303);
    c.header('HX-Redirect', url);
    return c.body(null, 200);
  }

  const pageUrl = (session: CheckoutSession) => `/?token=${session.cartId}`;
  const statusUrl = (session: CheckoutSession) => `/status?token=${session.cartId}`;
  const expired = ({ state }: CheckoutSession) => state.status === 'abandoned' || (state.status === 'pending' && Date.parse(state.expiresOn) <= Date.now());
  /** The merchant ended the session (its expire endpoint): the customer is told so before going back. */
  const closedByStore = ({ state }: CheckoutSession) => state.status === 'cancelled' && state.cancelledBy === 'merchant';

  /**
   * A session with an outcome sends the customer back to the merchant; an expired one to its 410 page.
   * After a payment (or a manual-capture authorization, also announced by `order_created`), the first
   * `order_created` delivery gets a bounded head start, so the merchant's success page usually already
   * knows the order; the redirect never waits longer, whatever the merchant does.
   */
  async function leave(c: C, session: CheckoutSession) {
    // At the bank's 3-D Secure challenge: a plain redirect there (HX-Redirect for htmx), no JavaScript needed.
    if (session.state.step === 'authenticating' && session.state.authentication && holds(c, session))
      return redirect(c, session.state.authentication.redirectUrl);
    const back = closedByStore(session) ? undefined : merchantReturnUrl(session, session.state.status);
    if (back) {
      if (SUCCESS_STATUSES.has(session.state.status))
        await waitForFirstDeliveryAttempt(deps.db, session.cartId, 'order_created', SUCCESS_REDIRECT_WEBHOOK_WAIT_MS);
      return redirect(c, back);
    }
    if (expired(session) || (session.state.step === 'done' && session.state.status !== 'processing')) return redirect(c, pageUrl(session));
    return undefined;
  }

  /** After an accepted action: htmx gets the next panel in place, a plain form post the next page. */
  function moveOn(c: C, session: CheckoutSession, extras: Extras = {}) {
    if (isHtmx(c)) return render(c, session, extras);
    return c.redirect(session.state.step === 'processing' ? statusUrl(session) : pageUrl(session), 303);
  }

  function notFoundPage(c: C) {
    const lang = locale(c);
    return c.html(messagePage({ locale: lang, title: t(lang, 'notFound.title'), message: t(lang, 'notFound.message') }), 404);
  }

  /**
   * Expired, closed by the store, or already used: this link cannot take a payment any more. A session
   * the store closed links to its failureUrl (with the cartId), where a customer who did not cancel
   * expects the merchant to say why (sold out, order changed) and what to do next; the store's home
   * page would lose that thread.
   */
  function closedPage(c: C, session: CheckoutSession) {
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

  // The customer's language: the merchant's or the switcher's ?lang= (kept in a cookie, so the pages a
  // form post leads to stay in it), then that cookie, then Accept-Language, then (once the cart is
  // loaded, loadSession) the cart's country's, then English.
  app.use('*', async (c: C, next) => {
    const query = c.req.query('lang');
    const chosen = supportedLocale(query);
    if (chosen && c.req.method === 'GET') {
      setCookie(c, LOCALE_COOKIE, chosen, { httpOnly: true, secure: production, sameSite: 'Lax', path: '/', maxAge: LOCALE_COOKIE_MAX_AGE_SECONDS });
    }
    const asked = askedLocale({ query, cookie: getCookie(c, LOCALE_COOKIE), acceptLanguage: c.req.header('Accept-Language') });
    c.set('locale', asked ?? DEFAULT_LOCALE);
    c.set('localeAsked', asked !== undefined);
    await next();
    c.header('Content-Language', locale(c));
  });

  /** The session behind a token; a customer who asked for no language we speak gets the cart's country's. */
  async function loadSession(c: C, token: string): Promise<CheckoutSession | undefined> {
    const session = await loadCheckoutSession(deps, token);
    if (session && !c.get('localeAsked')) c.set('locale', negotiateLocale({ country: session.cart.country }));
    return session;
  }

  /**
   * The cardholder's bank sends them back here, by GET or by a form post from its own origin (so before
   * the origin check), with the signed token the worker gave the processor. The session asks the
   * processor how the challenge ended; the update's fixed id makes a return posted twice one completion.
   * An answer slower than the page's deadline lands on the status page, which polls for the outcome.
   */
  app.on(['GET', 'POST'], THREE_D_SECURE_RETURN_PATH, async (c) => {
    const cartId = cartOfReturnToken(config.keyring, c.req.query('token'));
    if (!cartId) {
      const lang = locale(c);
      return c.html(messagePage({ locale: lang, title: t(lang, 'threeDSecure.unknownTitle'), message: t(lang, 'threeDSecure.unknownMessage') }), 404);
    }
    try {
      const result = await actions.threeDSecureReturn(cartId);
      logger.info({ cartId, accepted: result.accepted }, '3-D Secure return');
    } catch (err) {
      logger.warn({ err, cartId }, '3-D Secure return not confirmed in time: the status page follows it');
      return c.redirect(`/status?token=${cartId}`, 303);
    }
    const session = await loadSession(c, cartId);
    if (!session) return notFoundPage(c);
    return (await leave(c, session)) ?? c.redirect(statusUrl(session), 303);
  });

  // Forms post only from our own page: the Origin (or Sec-Fetch-Site) must say so, and the body must
  // carry the double-submit token bound to this cart and this browser.
  app.use('*', originCheck({ origin: (origin, c) => origin === ownOrigin || origin === new URL(c.req.url).origin }));
  app.use(
    '*',
    bodyLimit({
      maxSize: FORM_BODY_LIMIT_BYTES,
      onError: (c) => {
        const lang = requestLocale(c as C);
        return c.html(messagePage({ locale: lang, title: t(lang, 'tooLarge.title'), message: t(lang, 'tooLarge.message') }), 413);
      },
    }),
  );

  if (!production) app.route('/', sandboxChallengeRoutes(deps));
  app.route('/', paymentLinkRoutes(deps));
  app.route('/', recoveryRoutes(deps));

  app.get('/', async (c) => {
    const session = await loadSession(c, c.req.query('token') ?? '');
    if (!session) return notFoundPage(c);
    if (session.state.step === 'authenticating' && session.state.authentication && holds(c, session))
      return c.redirect(session.state.authentication.redirectUrl, 303);
    if (expired(session) || session.state.step === 'done') return closedPage(c, session);
    if (!session.pageOpened) await reached(session, 'page_opened');
    return render(c, session);
  });

  /** Polled every second while the payment is processing; the answer that finds an outcome redirects. */
  app.get('/status', async (c) => {
    const token = c.req.query('token') ?? '';
    let session: CheckoutSession | undefined;
    try {
      session = await loadSession(c, token);
    } catch (err) {
      if (!isHtmx(c)) throw err;
      // Nothing swapped: the polling element stays and asks again in a second.
      logger.warn({ err, cartId: token }, 'payment status poll failed');
      return c.body(null, 204);
    }
    if (!session) return notFoundPage(c);
    const left = await leave(c, session);
    if (left) return left;
    if (session.state.step !== 'processing' && !isHtmx(c)) return c.redirect(pageUrl(session), 303);
    return render(c, session);
  });

  /** A form post over RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: nothing was read or done, so no session to show. */
  function tooManyRequests(c: C, retryAfterSeconds: number) {
    const lang = locale(c);
    const message = t(lang, 'tooMany.message', { minutes: waitMinutes(retryAfterSeconds) });
    c.header('Retry-After', String(retryAfterSeconds));
    if (isHtmx(c)) return c.html(html`<section id="step" class="panel step"><p class="alert" role="alert">${message}</p></section>`, 429);
    return c.html(messagePage({ locale: lang, title: t(lang, 'tooMany.title'), message }), 429);
  }

  /**
   * A one-time code refused by OTP_SENDS_PER_DESTINATION, OTP_SENDS_PER_CLIENT or an hourly SMS or
   * email cap, said at the field. A channel's cap is told as the number's or the address's limit: its
   * message already suggests another contact, and the other channel still goes out.
   */
  function tooManyCodes(c: C, session: CheckoutSession, refused: Extract<OtpSendLimit, { allowed: false }>, field: 'contact' | 'code', extras: Extras) {
    const to = (field === 'contact' ? extras.values?.contact : session.state.contactHint)?.includes('@') ? 'email' : 'phone';
    const key = refused.refusedBy === 'client' ? 'tooManyCodes.client' : (`tooManyCodes.${to}` as const);
    const message = t(locale(c), key, { minutes: waitMinutes(refused.retryAfterSeconds) });
    logger.warn({ cartId: session.cartId, limit: refused.refusedBy }, 'one-time code refused: send limit reached');
    c.header('Retry-After', String(refused.retryAfterSeconds));
    return render(c, session, { ...extras, notice: undefined, errors: { [field]: message } }, 429);
  }

  /**
   * After a send the workflow refused: if it never reached the sender (the session's attempt count
   * did not move), the hits are taken back, so only codes that were sent count.
   */
  async function refundUnlessSent(session: CheckoutSession, result: ActionResult, counted: Extract<OtpSendLimit, { allowed: true }>) {
    if (result.accepted) return;
    try {
      const now = await queryState(deps, session.cartId);
      if ((now.sendAttempts ?? 0) === (session.state.sendAttempts ?? 0)) await counted.refund();
    } catch (err) {
      // Kept counted: a code may have gone out.
      logger.warn({ err, cartId: session.cartId }, 'could not tell whether a refused send reached the sender; it stays counted');
    }
  }

  /**
   * `rebinds`: the action also serves another browser than the one that verified (a fresh code to the
   * verified contact); every other action after verification is the verifying browser's alone.
   */
  function action(
    path: string,
    name: string,
    handle: (c: C, session: CheckoutSession, form: (key: string) => string) => Promise<Response>,
    options: { rebinds?: boolean } = {},
  ) {
    app.post(path, async (c) => {
      // Counted before the body is read: a flood of posts costs one counter update each.
      const retryAfter = await limits.pageAction(c);
      if (retryAfter !== undefined) {
        logger.warn({ action: name }, 'checkout form refused: page action limit reached');
        return tooManyRequests(c, retryAfter);
      }
      const body = await c.req.parseBody();
      const form = (key: string) => (typeof body[key] === 'string' ? body[key] : '');
      const session = await loadSession(c, form('token'));
      if (!session) return notFoundPage(c);
      if (!csrfTokenValid(csrfKey, session.cartId, getCookie(c, CSRF_COOKIE), form(CSRF_FIELD))) {
        logger.warn({ cartId: session.cartId, action: name }, 'checkout form refused: CSRF token missing or wrong');
        return render(c, session, { errors: { form: t(locale(c), 'error.csrf') } }, 403);
      }
      if (!options.rebinds && !holds(c, session)) {
        logger.warn({ cartId: session.cartId, action: name }, 'checkout form refused: not the browser that verified the code');
        return render(c, session, { errors: { form: t(locale(c), 'rebind.refused') } }, 403);
      }
      const left = await leave(c, session);
      if (left) return left;
      try {
        // Write-ahead: the ledger says the customer started before the workflow can hear from them, so
        // a load that finds no marker knows the workflow's state without asking (load-session.ts).
        if (!session.customerStarted) await markCustomerStarted(deps.db, session.cartId);
        return await handle(c, session, form);
      } catch (err) {
        logger.error({ err, cartId: session.cartId, action: name }, 'checkout action failed: PostgreSQL or Temporal unavailable or too slow');
        return render(c, session, { errors: { form: t(locale(c), 'error.unavailable') } }, 503);
      }
    });
  }

  /**
   * The dashboard's funnel (docs/dashboard.md): the first time the page reached a step, recorded here
   * where it happens, after the workflow accepted it. A failed write costs the funnel one step of one
   * session, never the customer their checkout.
   */
  async function reached(session: CheckoutSession, step: RecordedFunnelStep) {
    try {
      await recordFunnelStep(deps.db, session.cartId, step);
    } catch (err) {
      logger.warn({ err, cartId: session.cartId, step }, 'funnel step not recorded');
    }
  }

  /** Renders what an action led to, with a refusal's message shown at the field it concerns. */
  async function outcome(c: C, session: CheckoutSession, result: ActionResult, field: FieldName | 'form', extras: Extras = {}) {
    logger.info({ cartId: session.cartId, field, accepted: result.accepted }, 'checkout action');
    if (result.accepted) {
      const next = { ...session, state: result.state };
      return (await leave(c, next)) ?? moveOn(c, next, extras);
    }
    const fresh = await loadCheckoutSession(deps, session.cartId);
    if (!fresh) return notFoundPage(c);
    const left = await leave(c, fresh);
    if (left) return left;
    const message = result.reason === 'rejected' ? refusalMessage(locale(c), result.code) : t(locale(c), 'error.sessionClosed');
    return render(c, fresh, { ...extras, notice: undefined, errors: { [field]: message } }, 422);
  }

  action('/contact', 'sendCode', async (c, session, form) => {
    // A recovered session's offered contact is read from the ledger, never sent by the page.
    const remembered = form('remembered') === '1' ? session.rememberedContact : undefined;
    const contact = remembered?.address ?? form('contact').trim();
    // The reminder is asked for only where the page offered it: a box ticked on any other cart is ignored.
    const remind = session.offersReminder && form('remind') === '1';
    // What the form shows back on a refusal: what the customer typed and ticked, never the offered address.
    const typed = remembered ? {} : { values: { contact, remind } };
    const read = readContact(contact, session.cart.country);
    if (!read) {
      return render(c, session, { ...typed, errors: { contact: t(locale(c), 'error.contactInvalid') } }, 422);
    }
    if (session.state.step !== 'contact') return moveOn(c, session);
    const contactKey = limits.contactKey(read.destination);
    const cardKey = savedCardContactKey(config.keyring, read.contact.address);
    const counted = await limits.otpSend(c, {
      contactKey,
      channel: read.contact.channel,
      platformUuid: session.store.platformUuid,
      createdWith: session.codeBudgetAs,
    });
    if (!counted.allowed) return tooManyCodes(c, session, counted, 'contact', typed);
    if (session.savedCardsAllowed) await rekeyLegacySavedCards(read.contact.address, cardKey);
    // The workflow is given the address as it was read, so the code goes where it was counted.
    const result = await actions.sendCode(session.cartId, read.contact.address, session.state, { contactKey, cardKey, locale: locale(c), remind });
    await refundUnlessSent(session, result, counted);
    if (result.accepted) await reached(session, 'code_sent');
    return outcome(c, session, result, 'contact', typed);
  });

  /** Cards saved before they had a key of their own move to this contact's, when they are its (docs/saved-cards.md). */
  async function rekeyLegacySavedCards(address: string, cardKey: string) {
    const legacy = legacySavedCardContactKey(config.keyring, address);
    if (legacy) await rekeySavedCards(deps.db, legacy, cardKey);
  }

  action(
    '/resend-code',
    'resendCode',
    async (c, session) => {
      if (session.state.step !== 'code' && holds(c, session)) return moveOn(c, session);
      // The hint is what the state keeps of the contact: an email's has its domain, a phone's is its last digits.
      const channel = session.state.contactHint?.includes('@') ? 'email' : 'sms';
      const counted = await limits.otpSend(c, {
        contactKey: session.state.contactKey,
        channel,
        platformUuid: session.store.platformUuid,
        createdWith: session.codeBudgetAs,
      });
      if (!counted.allowed) return tooManyCodes(c, session, counted, 'code', {});
      const result = await actions.resendCode(session.cartId, session.state);
      await refundUnlessSent(session, result, counted);
      return outcome(c, session, result, 'code', { notice: t(locale(c), 'code.resent') });
    },
    { rebinds: true },
  );

  action(
    '/code',
    'verifyCode',
    async (c, session, form) => {
      const code = form('code').replace(/\s/g, '');
      if (!/^\d{6}$/.test(code)) return render(c, session, { errors: { code: t(locale(c), 'error.codeFormat') } }, 422);
      const rebinding = !holds(c, session);
      if (session.state.step !== 'code' && !rebinding) return moveOn(c, session);
      const result = await actions.verifyCode(session.cartId, otpHash(config.keyring, session.cartId, code), session.state);
      if (result.accepted && result.state.step === 'code' && result.state.status === 'pending') {
        const left = result.state.otp?.attemptsLeft;
        const message = left === undefined ? t(locale(c), 'error.codeWrong') : t(locale(c), 'error.codeWrongAttempts', { left });
        return render(c, { ...session, state: result.state }, { errors: { code: message } }, 422);
      }
      const verified = result.accepted && result.state.status === 'pending' && result.state.step !== 'code';
      // The browser that entered the right code acts for the customer from now on, this one alone.
      const bound = verified ? binding.claim(c) : undefined;
      if (bound) await bindBrowser(deps.db, session.cartId, bound);
      if (rebinding) logger.info({ cartId: session.cartId, rebound: verified }, 'another browser asked to act for a verified session');
      else if (verified) await reached(session, 'code_verified');
      return outcome(c, bound ? { ...session, browserBinding: bound } : session, result, 'code');
    },
    { rebinds: true },
  );

  action('/card', 'pay', async (c, session, form) => {
    if (form('savedCard')) return payWithSavedCard(c, session, form('savedCard'));
    const expiry = form('expiry').trim();
    const check = checkCard({ number: form('number'), expiry, cvv: form('cvv') }, new Date());
    if (!check.ok) {
      return render(
        c,
        session,
        { values: { expiry }, errors: Object.fromEntries(check.errors.map((e) => [e.field, t(locale(c), CARD_ERROR_KEYS[e.code], e.values)])) },
        422,
      );
    }
    // A second click after the payment started must not put another copy of the card in the vault; it
    // waits on the first click's outcome instead.
    if (session.state.step === 'processing') return outcome(c, session, await actions.paymentOutcome(session.cartId, session.state), 'number');
    if (session.state.step !== 'card') return moveOn(c, session);
    const linkRefused = await refusedByLink(c, session, 'number');
    if (linkRefused) return linkRefused;
    const { card } = check;
    // The consent counts only where saving is offered: a ticked box posted elsewhere saves nothing.
    const save = form('save') === '1' && offersSavedCards(session) !== undefined ? { save: true } : {};
    const { token } = await storeCard(deps.db, config.keyring, session.cartId, card);
    const result = await actions.pay(session.cartId, { cardToken: token, brand: card.brand, last4: card.last4, ...save }, session.state);
    if (!result.accepted) await deleteCard(deps.db, token);
    else await reached(session, 'pay_attempted');
    return outcome(c, session, result, 'number', { values: { expiry } });
  });

  /**
   * A session in a payment link's lineage is paid only with one of the link's uses, reserved here
   * (core/links/link-uses.ts); a link closed, expired or used up refuses Pay, said at the field.
   */
  async function refusedByLink(c: C, session: CheckoutSession, field: 'number' | 'form') {
    const refusal = await reserveLinkUse(deps.db, session);
    if (!refusal) return undefined;
    logger.info({ cartId: session.cartId, refusal }, 'pay refused: the session’s payment link no longer sells');
    return render(c, session, { errors: { [field]: t(locale(c), 'refusal.payment_link_unavailable') } }, 422);
  }

  /**
   * Pay with a saved card: one of the verified contact's, at a merchant that allows them. The session
   * is told its id alone; the worker charges it only for the contact that session verified.
   */
  async function payWithSavedCard(c: C, session: CheckoutSession, savedCardId: string) {
    if (session.state.step === 'processing') return outcome(c, session, await actions.paymentOutcome(session.cartId, session.state), 'form');
    const contactKey = offersSavedCards(session);
    const card = contactKey && SAVED_CARD_ID_PATTERN.test(savedCardId) ? await findSavedCard(deps.db, savedCardId, contactKey) : undefined;
    if (!card) return session.state.step === 'card' ? render(c, session, { errors: { form: t(locale(c), 'error.generic') } }, 422) : moveOn(c, session);
    const linkRefused = await refusedByLink(c, session, 'form');
    if (linkRefused) return linkRefused;
    const result = await actions.pay(session.cartId, { savedCardId: card.id, brand: card.brand, last4: card.last4 }, session.state);
    if (result.accepted) await reached(session, 'pay_attempted');
    return outcome(c, session, result, 'form');
  }

  /**
   * "Manage saved cards": removes one of the verified contact's cards, or all of them. They are no
   * longer offered from now on; the removal run, started at once, detaches them at the processor.
   */
  action('/saved-cards/remove', 'removeSavedCards', async (c, session, form) => {
    const contactKey = offersSavedCards(session);
    if (!contactKey) return moveOn(c, session);
    const one = form('all') === '1' ? undefined : form('savedCard');
    if (one !== undefined && !SAVED_CARD_ID_PATTERN.test(one)) return moveOn(c, session);
    const removed = await removeSavedCards(deps.db, [contactKey], one);
    logger.info({ cartId: session.cartId, removed, all: one === undefined }, 'saved cards removed by the customer');
    const notStarted = await startSavedCardRemoval(deps.temporal.client, config);
    if (notStarted) logger.warn({ err: notStarted, cartId: session.cartId }, 'saved-card removal not started now: the next scheduled run detaches the cards');
    return moveOn(c, session, { notice: t(locale(c), one === undefined ? 'card.removedAll' : 'card.removed') });
  });

  action('/cancel', 'cancel', async (c, session) => outcome(c, session, await actions.cancel(session.cartId), 'form'));

  return app;
}

/** How many minutes until a limit's window ends, rounded up (the catalogue says "1 minute", "12 minutes"). */
function waitMinutes(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / 60));
}

/** The language the request negotiated (set by the first middleware). */
const locale = (c: C) => requestLocale(c);

/** A refusal's code (an ACTION_REFUSED type) as a sentence in the customer's language; unknown codes get a generic one. */
function refusalMessage(lang: string, code: string | undefined): string {
  const key = `refusal.${code}`;
  return code && isMessageKey(key) ? t(lang, key) : t(lang, 'error.generic');
}

const CARD_ERROR_KEYS = {
  number_length: 'error.cardNumberLength',
  number_invalid: 'error.cardNumberInvalid',
  expiry_format: 'error.expiryFormat',
  expired: 'error.cardExpired',
  cvv: 'error.cvv',
} as const satisfies Record<CardErrorCode, MessageKey>;
