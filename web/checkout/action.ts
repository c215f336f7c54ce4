import { getCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { markCustomerStarted } from '../../core/checkout/cart-ledger.js';
import { CSRF_COOKIE, CSRF_FIELD, csrfTokenValid } from '../csrf.js';
import { isHtmx } from '../htmx.js';
import { isMessageKey, t } from '../i18n/index.js';
import type { ActionResult } from '../../application/checkout/customer-actions.js';
import type { Leaving } from './leave.js';
import { waitMinutes } from './limits.js';
import { loadCheckoutSession, type CheckoutSession } from './load-session.js';
import { locale, type C, type Extras, type PageBase } from './page-base.js';
import { notFoundPage, type Rendering } from './render.js';
import { messagePage } from './views/layout.js';
import type { FieldName } from './views/step-view.js';

type Form = (key: string) => string;

/** Every form post of the page goes through `action`, which holds its guards in one place. */
export function formActions(page: PageBase & Rendering & Leaving) {
  const { logger } = page;

  /**
   * `rebinds`: the action also serves another browser than the one that verified (a fresh code to the
   * verified contact); every other action after verification is the verifying browser's alone.
   */
  function action(name: string, handle: (c: C, session: CheckoutSession, form: Form) => Promise<Response>, options: { rebinds?: boolean } = {}) {
    return async (c: C) => {
      // Counted before the body is read: a flood of posts costs one counter update each.
      const retryAfter = await page.limits.pageAction(c);
      if (retryAfter !== undefined) {
        logger.warn({ action: name }, 'checkout form refused: page action limit reached');
        return tooManyRequests(c, retryAfter);
      }
      const body = await c.req.parseBody();
      const form = (key: string) => (typeof body[key] === 'string' ? body[key] : '');
      const session = await page.loadSession(c, form('token'));
      if (!session) return notFoundPage(c);
      if (!csrfTokenValid(page.csrfKey, session.cartId, getCookie(c, CSRF_COOKIE), form(CSRF_FIELD))) {
        logger.warn({ cartId: session.cartId, action: name }, 'checkout form refused: CSRF token missing or wrong');
        return page.render(c, session, { ...typedBack(session, form), errors: { form: t(locale(c), 'error.csrf') } }, 403);
      }
      if (!options.rebinds && !page.holds(c, session)) {
        logger.warn({ cartId: session.cartId, action: name }, 'checkout form refused: not the browser that verified the code');
        return page.render(c, session, { errors: { form: t(locale(c), 'rebind.refused') } }, 403);
      }
      const left = await page.leave(c, session);
      if (left) return left;
      try {
        // Write-ahead: the ledger says the customer started before the workflow can hear from them, so
        // a load that finds no marker knows the workflow's state without asking (load-session.ts).
        // False only for a cart the sandbox helpers claimed meanwhile (api/sandbox/): no browser acts for it.
        if (!session.customerStarted && !(await markCustomerStarted(page.deps.db, session.cartId))) return notFoundPage(c);
        return await handle(c, session, form);
      } catch (err) {
        logger.error({ err, cartId: session.cartId, action: name }, 'checkout action failed: PostgreSQL or Temporal unavailable or too slow');
        return page.render(c, session, { ...typedBack(session, form), errors: { form: t(locale(c), 'error.unavailable') } }, 503);
      }
    };
  }

  /** Renders what an action led to, with a refusal's message shown at the field it concerns. */
  async function outcome(c: C, session: CheckoutSession, result: ActionResult, field: FieldName | 'form', extras: Extras = {}) {
    logger.info({ cartId: session.cartId, field, accepted: result.accepted }, 'checkout action');
    if (result.accepted) {
      const next = { ...session, state: result.state };
      return (await page.leave(c, next)) ?? page.moveOn(c, next, extras);
    }
    const fresh = await loadCheckoutSession(page.deps, session.cartId);
    if (!fresh) return notFoundPage(c);
    const left = await page.leave(c, fresh);
    if (left) return left;
    const message = result.reason === 'rejected' ? refusalMessage(locale(c), result.code) : t(locale(c), 'error.sessionClosed');
    return page.render(c, fresh, { ...extras, notice: undefined, errors: { [field]: message } }, 422);
  }

  return { action, outcome };
}

export type FormActions = ReturnType<typeof formActions>;

/**
 * What a refused post shows back of what the customer typed, whether the guard or the step refused it:
 * the contact, the expiry and the reminder box, never a card number, a CVV or a code
 * (./views/step-view.ts). A recovered session's offered address was not typed: nothing is shown back.
 */
export function typedBack(session: CheckoutSession, form: Form): Extras {
  if (form('remembered') === '1' && session.rememberedContact) return {};
  const contact = form('contact').trim();
  const expiry = form('expiry').trim();
  return {
    values: {
      ...(contact ? { contact } : {}),
      ...(expiry ? { expiry } : {}),
      ...(session.offersReminder && form('remind') === '1' ? { remind: true } : {}),
    },
  };
}

/** A form post over RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: nothing was read or done, so no session to show. */
function tooManyRequests(c: C, retryAfterSeconds: number) {
  const lang = locale(c);
  const message = t(lang, 'tooMany.message', { minutes: waitMinutes(retryAfterSeconds) });
  c.header('Retry-After', String(retryAfterSeconds));
  if (isHtmx(c)) return c.html(html`<section id="step" class="panel step"><p class="alert" role="alert">${message}</p></section>`, 429);
  return c.html(messagePage({ locale: lang, title: t(lang, 'tooMany.title'), message }), 429);
}

/** A refusal's code (an ACTION_REFUSED type) as a sentence in the customer's language; unknown codes get a generic one. */
function refusalMessage(lang: string, code: string | undefined): string {
  const key = `refusal.${code}`;
  return code && isMessageKey(key) ? t(lang, key) : t(lang, 'error.generic');
}
