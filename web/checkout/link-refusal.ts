import { reserveLinkUse } from '../../core/links/link-uses.js';
import { t } from '../i18n/index.js';
import type { CheckoutSession } from './load-session.js';
import { locale, type C, type PageBase } from './page-base.js';
import type { Rendering } from './render.js';

/**
 * A session in a payment link's lineage is paid only with one of the link's uses, reserved here
 * (core/links/link-uses.ts); a link closed, expired or used up refuses Pay, said at the field.
 */
export async function refusedByLink(page: PageBase & Rendering, c: C, session: CheckoutSession, field: 'number' | 'form') {
  const refusal = await reserveLinkUse(page.deps.db, session);
  if (!refusal) return undefined;
  page.logger.info({ cartId: session.cartId, refusal }, 'pay refused: the session’s payment link no longer sells');
  return page.render(c, session, { errors: { [field]: t(locale(c), 'refusal.payment_link_unavailable') } }, 422);
}
