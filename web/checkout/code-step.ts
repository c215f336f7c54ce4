import { Hono } from 'hono';
import { bindBrowser } from '../../core/checkout/cart-ledger.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { t } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import { refundUnlessSent, tooManyCodes } from './code-sends.js';
import type { PageContext } from './context.js';
import { locale } from './page-base.js';

/**
 * The code step: Resend code and Verify. Both also serve another browser than the one that verified
 * (`rebinds`): a fresh code to the verified contact, and the right code binds the cart to it.
 */
export function codeRoutes(page: PageContext) {
  const { config, limits, logger } = page;
  const app = new Hono<WebEnv>();

  app.post(
    '/resend-code',
    page.action(
      'resendCode',
      async (c, session) => {
        if (session.state.step !== 'code' && page.holds(c, session)) return page.moveOn(c, session);
        // The hint is what the state keeps of the contact: an email's has its domain, a phone's is its last digits.
        const channel = session.state.contactHint?.includes('@') ? 'email' : 'sms';
        const counted = await limits.otpSend(c, {
          contactKey: session.state.contactKey,
          channel,
          platformUuid: session.store.platformUuid,
          createdWith: session.codeBudgetAs,
        });
        if (!counted.allowed) return tooManyCodes(page, c, session, counted, 'code', {});
        const result = await page.actions.resendCode(session);
        await refundUnlessSent(page, session, result, counted);
        return page.outcome(c, session, result, 'code', { notice: t(locale(c), 'code.resent') });
      },
      { rebinds: true },
    ),
  );

  app.post(
    '/code',
    page.action(
      'verifyCode',
      async (c, session, form) => {
        const code = form('code').replace(/\s/g, '');
        if (!/^\d{6}$/.test(code)) return page.render(c, session, { errors: { code: t(locale(c), 'error.codeFormat') } }, 422);
        const rebinding = !page.holds(c, session);
        if (session.state.step !== 'code' && !rebinding) return page.moveOn(c, session);
        const result = await page.actions.verifyCode(session, otpHash(config.keyring, session.cartId, code));
        if (result.accepted && result.state.step === 'code' && result.state.status === 'pending') {
          const left = result.state.otp?.attemptsLeft;
          const message = left === undefined ? t(locale(c), 'error.codeWrong') : t(locale(c), 'error.codeWrongAttempts', { left });
          return page.render(c, { ...session, state: result.state }, { errors: { code: message } }, 422);
        }
        const verified = result.accepted && result.state.status === 'pending' && result.state.step !== 'code';
        // The browser that entered the right code acts for the customer from now on, this one alone.
        const bound = verified ? page.bindingFor(c).claim(c) : undefined;
        if (bound) await bindBrowser(page.deps.db, session.cartId, bound);
        if (rebinding) logger.info({ cartId: session.cartId, rebound: verified }, 'another browser asked to act for a verified session');
        else if (verified) await page.reached(session, 'code_verified');
        return page.outcome(c, bound ? { ...session, browserBinding: bound } : session, result, 'code');
      },
      { rebinds: true },
    ),
  );

  return app;
}
