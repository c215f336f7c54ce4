import { Hono } from 'hono';
import { readContact } from '../../core/checkout/contact-input.js';
import { rekeySavedCards } from '../../core/checkout/saved-cards.js';
import { legacySavedCardContactKey, savedCardContactKey } from '../../core/checkout/saved-card-contact.js';
import { t } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import { refundUnlessSent, tooManyCodes } from './code-sends.js';
import { typedBack } from './action.js';
import type { PageContext } from './context.js';
import { locale, type PageBase } from './page-base.js';

/** Send code: the contact step's one post. */
export function contactRoutes(page: PageContext) {
  const { config, limits } = page;
  const app = new Hono<WebEnv>();

  app.post(
    '/contact',
    page.action('sendCode', async (c, session, form) => {
      // A recovered session's offered contact is read from the ledger, never sent by the page.
      const remembered = form('remembered') === '1' ? session.rememberedContact : undefined;
      const contact = remembered?.address ?? form('contact').trim();
      // The reminder is asked for only where the page offered it: a box ticked on any other cart is ignored.
      const remind = session.offersReminder && form('remind') === '1';
      const typed = typedBack(session, form);
      const read = readContact(contact, session.cart.country);
      if (!read) {
        return page.render(c, session, { ...typed, errors: { contact: t(locale(c), 'error.contactInvalid') } }, 422);
      }
      if (session.state.step !== 'contact') return page.moveOn(c, session);
      const contactKey = limits.contactKey(read.destination);
      const cardKey = savedCardContactKey(config.keyring, read.contact.address);
      const counted = await limits.otpSend(c, {
        contactKey,
        channel: read.contact.channel,
        platformUuid: session.store.platformUuid,
        createdWith: session.codeBudgetAs,
      });
      if (!counted.allowed) return tooManyCodes(page, c, session, counted, 'contact', typed);
      if (session.savedCardsAllowed) await rekeyLegacySavedCards(page, read.contact.address, cardKey);
      // The workflow is given the address as it was read, so the code goes where it was counted.
      const result = await page.actions.sendCode(session, read.contact.address, { contactKey, cardKey, locale: locale(c), remind });
      await refundUnlessSent(page, session, result, counted);
      if (result.accepted) await page.reached(session, 'code_sent');
      return page.outcome(c, session, result, 'contact', typed);
    }),
  );

  return app;
}

/** Cards saved before they had a key of their own move to this contact's, when they are its (docs/saved-cards.md). */
async function rekeyLegacySavedCards(page: PageBase, address: string, cardKey: string) {
  const legacy = legacySavedCardContactKey(page.config.keyring, address);
  if (legacy) await rekeySavedCards(page.deps.db, legacy, cardKey);
}
