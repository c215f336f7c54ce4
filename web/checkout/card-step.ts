import { Hono } from 'hono';
import { deleteCard, storeCard } from '../../core/checkout/card-vault.js';
import { checkCard, type CardErrorCode } from '../../core/checkout/cards.js';
import { t, type MessageKey } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import type { PageContext } from './context.js';
import { refusedByLink } from './link-refusal.js';
import { locale, offersSavedCards } from './page-base.js';
import { payWithSavedCard } from './saved-cards.js';

/** Pay: a typed card, or one of the verified contact's saved cards (saved-cards.ts). */
export function cardRoutes(page: PageContext) {
  const { config } = page;
  const app = new Hono<WebEnv>();

  app.post(
    '/card',
    page.action('pay', async (c, session, form) => {
      if (form('savedCard')) return payWithSavedCard(page, c, session, form('savedCard'));
      const expiry = form('expiry').trim();
      const check = checkCard({ number: form('number'), expiry, cvv: form('cvv') }, new Date());
      if (!check.ok) {
        return page.render(
          c,
          session,
          { values: { expiry }, errors: Object.fromEntries(check.errors.map((e) => [e.field, t(locale(c), CARD_ERROR_KEYS[e.code], e.values)])) },
          422,
        );
      }
      // A second click after the payment started must not put another copy of the card in the vault; it
      // waits on the first click's outcome instead.
      if (session.state.step === 'processing') return page.outcome(c, session, await page.actions.paymentOutcome(session), 'number');
      if (session.state.step !== 'card') return page.moveOn(c, session);
      const linkRefused = await refusedByLink(page, c, session, 'number');
      if (linkRefused) return linkRefused;
      const { card } = check;
      // The consent counts only where saving is offered: a ticked box posted elsewhere saves nothing.
      const save = form('save') === '1' && offersSavedCards(session) !== undefined ? { save: true } : {};
      const { token } = await storeCard(page.deps.db, config.keyring, session.cartId, card);
      const result = await page.actions.pay(session, { cardToken: token, brand: card.brand, last4: card.last4, ...save });
      if (!result.accepted) await deleteCard(page.deps.db, token);
      else await page.reached(session, 'pay_attempted');
      return page.outcome(c, session, result, 'number', { values: { expiry } });
    }),
  );

  return app;
}

const CARD_ERROR_KEYS = {
  number_length: 'error.cardNumberLength',
  number_invalid: 'error.cardNumberInvalid',
  expiry_format: 'error.expiryFormat',
  expired: 'error.cardExpired',
  cvv: 'error.cvv',
} as const satisfies Record<CardErrorCode, MessageKey>;
