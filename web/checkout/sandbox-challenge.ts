import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import { findCart } from '../../core/checkout/cart-ledger.js';
import { allowFraming, isEmbedded } from './embedding.js';
import { merchantOrigins } from './merchant-redirect.js';
import { sandboxChargesIn } from '../../core/checkout/payment-processors/sandbox-charges.js';
import { SANDBOX_CHALLENGE_PATH } from '../../core/checkout/payment-processors/sandbox.js';
import { cartOfReturnToken, THREE_D_SECURE_RETURN_PATH } from '../../core/checkout/three-d-secure.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { requestLocale } from '../i18n/request.js';
import { t } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import { layout, messagePage } from './views/layout.js';

type C = Context<WebEnv>;

const PAYMENT_PATTERN = /^pi_sbx_[A-Za-z0-9_-]{24}$/;
const RESULTS = ['authenticated', 'failed'] as const;

/**
 * The sandbox issuer's 3-D Secure challenge (the card 4000 0027 6000 3184): a page of ours standing in
 * for the cardholder's bank, with **Complete authentication** and **Fail authentication**. The answer
 * goes to the sandbox acquirer's table (core/checkout/payment-processors/sandbox-charges.ts), which the
 * worker's processor reads when the customer is back at `/3ds/return`. Never served in production.
 * It sends the customer only to a return link of ours that we signed, never to a URL the query names,
 * and answers only the challenge of the cart that link names.
 */
export function sandboxChallengeRoutes(deps: { config: Config; db: Db; logger: Logger }) {
  const { config, logger } = deps;
  const charges = sandboxChargesIn(deps.db);
  const ownOrigin = new URL(config.checkoutBaseUrl).origin;
  const app = new Hono<WebEnv>();

  /**
   * The sandbox keys a challenge by its cart (core/checkout/payment-processors/sandbox.ts startChallenge).
   * A challenge's key and payment never change once started, so the answer posted after this check
   * still goes to this cart's challenge.
   */
  const isChallengeOf = async (payment: string, cartId: string) => (await charges.authenticationOfCharge(payment))?.idempotencyKey === cartId;

  /**
   * The payment and our signed return link, or undefined for anything we did not issue, or for a
   * payment of another cart than the link's: that would answer one cart's challenge and spend the
   * other's return on a challenge still unanswered.
   */
  const read = async (payment: string | undefined, back: string | undefined): Promise<{ payment: string; returnUrl: string; cartId: string } | undefined> => {
    if (!payment || !PAYMENT_PATTERN.test(payment) || !back || !URL.canParse(back)) return undefined;
    const url = new URL(back);
    if (url.origin !== ownOrigin || url.pathname !== THREE_D_SECURE_RETURN_PATH) return undefined;
    const cartId = cartOfReturnToken(config.keyring, url.searchParams.get('token') ?? undefined);
    return cartId && (await isChallengeOf(payment, cartId)) ? { payment, returnUrl: url.toString(), cartId } : undefined;
  };

  /**
   * The buttons' post ends at the merchant (the return redirects there): CSP form-action must allow its
   * origins. In the embedded checkout the challenge shows in the merchant's frame, as a bank's may.
   */
  const allowMerchantOrigins = async (c: C, cartId: string) => {
    const cart = await findCart(deps.db, cartId);
    if (!cart) return;
    c.set('formActionOrigins', merchantOrigins(cart));
    if (isEmbedded(c)) await allowFraming(c, deps.db, cart.platformUuid, true);
  };

  const invalid = (c: C) => {
    const lang = requestLocale(c);
    return c.html(messagePage({ locale: lang, title: t(lang, 'threeDSecure.unknownTitle'), message: t(lang, 'threeDSecure.unknownMessage') }), 404);
  };

  app.get(SANDBOX_CHALLENGE_PATH, async (c) => {
    const challenge = await read(c.req.query('payment'), c.req.query('return'));
    if (!challenge) return invalid(c);
    await allowMerchantOrigins(c, challenge.cartId);
    const lang = requestLocale(c);
    const title = t(lang, 'threeDSecure.sandboxTitle');
    const body = html`<main class="message-page">
      <section class="panel message">
        <h1>${title}</h1>
        <p>${t(lang, 'threeDSecure.sandboxLead')}</p>
        <form method="post" action="${SANDBOX_CHALLENGE_PATH}">
          <input type="hidden" name="payment" value="${challenge.payment}" />
          <input type="hidden" name="return" value="${challenge.returnUrl}" />
          <button type="submit" name="result" value="authenticated">${t(lang, 'threeDSecure.complete')}</button>
          <button type="submit" name="result" value="failed" class="secondary">${t(lang, 'threeDSecure.fail')}</button>
        </form>
      </section>
    </main>`;
    return c.html(layout({ locale: lang, title, body }));
  });

  app.post(SANDBOX_CHALLENGE_PATH, async (c) => {
    const form = await c.req.parseBody();
    const field = (key: string) => (typeof form[key] === 'string' ? form[key] : undefined);
    const challenge = await read(field('payment'), field('return'));
    const result = RESULTS.find((r) => r === field('result'));
    if (!challenge || !result) return invalid(c);
    // The first answer stays: a second click, or one after the payment was voided, changes nothing.
    const answered = await charges.answerAuthentication(challenge.payment, result);
    logger.info({ payment: challenge.payment, result, answered }, 'sandbox 3-D Secure challenge answered');
    return c.redirect(challenge.returnUrl, 303);
  });

  return app;
}
