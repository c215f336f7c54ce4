import { Hono } from 'hono';
import { findSavedCard, removeSavedCards } from '../../core/checkout/saved-cards.js';
import { SAVED_CARD_ID_PATTERN } from '../../core/checkout/saved-card-id.js';
import { startSavedCardRemoval } from '../../workflows/saved-card-removal/client.js';
import { t } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import type { PageContext } from './context.js';
import { refusedByLink } from './link-refusal.js';
import type { CheckoutSession } from './load-session.js';
import { locale, offersSavedCards, type C } from './page-base.js';

/**
 * Pay with a saved card: one of the verified contact's, at a merchant that allows them. The session
 * is told its id alone; the worker charges it only for the contact that session verified.
 */
export async function payWithSavedCard(page: PageContext, c: C, session: CheckoutSession, savedCardId: string) {
  if (session.state.step === 'processing') return page.outcome(c, session, await page.actions.paymentOutcome(session), 'form');
  const contactKey = offersSavedCards(session);
  const card = contactKey && SAVED_CARD_ID_PATTERN.test(savedCardId) ? await findSavedCard(page.deps.db, savedCardId, contactKey) : undefined;
  if (!card) return session.state.step === 'card' ? page.render(c, session, { errors: { form: t(locale(c), 'error.generic') } }, 422) : page.moveOn(c, session);
  const linkRefused = await refusedByLink(page, c, session, 'form');
  if (linkRefused) return linkRefused;
  const result = await page.actions.pay(session, { savedCardId: card.id, brand: card.brand, last4: card.last4 });
  if (result.accepted) await page.reached(session, 'pay_attempted');
  return page.outcome(c, session, result, 'form');
}

/**
 * "Manage saved cards": removes one of the verified contact's cards, or all of them. They are no
 * longer offered from now on; the removal run, started at once, detaches them at the processor.
 */
export function savedCardRoutes(page: PageContext) {
  const { config, logger } = page;
  const app = new Hono<WebEnv>();

  app.post(
    '/saved-cards/remove',
    page.action('removeSavedCards', async (c, session, form) => {
      const contactKey = offersSavedCards(session);
      if (!contactKey) return page.moveOn(c, session);
      const one = form('all') === '1' ? undefined : form('savedCard');
      if (one !== undefined && !SAVED_CARD_ID_PATTERN.test(one)) return page.moveOn(c, session);
      const removed = await removeSavedCards(page.deps.db, [contactKey], one);
      logger.info({ cartId: session.cartId, removed, all: one === undefined }, 'saved cards removed by the customer');
      const notStarted = await startSavedCardRemoval(page.deps.temporal.client, config);
      if (notStarted) logger.warn({ err: notStarted, cartId: session.cartId }, 'saved-card removal not started now: the next scheduled run detaches the cards');
      return page.moveOn(c, session, { notice: t(locale(c), one === undefined ? 'card.removedAll' : 'card.removed') });
    }),
  );

  return app;
}
