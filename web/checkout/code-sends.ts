import { t } from '../i18n/index.js';
import type { ActionResult } from '../../application/checkout/customer-actions.js';
import { waitMinutes, type OtpSendLimit } from './limits.js';
import { queryState, type CheckoutSession } from './load-session.js';
import { locale, type C, type Extras, type PageBase } from './page-base.js';
import type { Rendering } from './render.js';

/**
 * A one-time code refused by OTP_SENDS_PER_DESTINATION, OTP_SENDS_PER_CLIENT or an hourly SMS or
 * email cap, said at the field. A channel's cap is told as the number's or the address's limit: its
 * message already suggests another contact, and the other channel still goes out.
 */
export function tooManyCodes(
  page: PageBase & Rendering,
  c: C,
  session: CheckoutSession,
  refused: Extract<OtpSendLimit, { allowed: false }>,
  field: 'contact' | 'code',
  extras: Extras,
) {
  const to = (field === 'contact' ? extras.values?.contact : session.state.contactHint)?.includes('@') ? 'email' : 'phone';
  const key = refused.refusedBy === 'client' ? 'tooManyCodes.client' : (`tooManyCodes.${to}` as const);
  const message = t(locale(c), key, { minutes: waitMinutes(refused.retryAfterSeconds) });
  page.logger.warn({ cartId: session.cartId, limit: refused.refusedBy }, 'one-time code refused: send limit reached');
  c.header('Retry-After', String(refused.retryAfterSeconds));
  return page.render(c, session, { ...extras, notice: undefined, errors: { [field]: message } }, 429);
}

/**
 * After a send the workflow refused: if it never reached the sender (the session's attempt count
 * did not move), the hits are taken back, so only codes that were sent count.
 */
export async function refundUnlessSent(page: PageBase, session: CheckoutSession, result: ActionResult, counted: Extract<OtpSendLimit, { allowed: true }>) {
  if (result.accepted) return;
  try {
    const now = await queryState(page.deps, session.cartId, 'refund_check');
    if ((now.sendAttempts ?? 0) === (session.state.sendAttempts ?? 0)) await counted.refund();
  } catch (err) {
    // Kept counted: a code may have gone out.
    page.logger.warn({ err, cartId: session.cartId }, 'could not tell whether a refused send reached the sender; it stays counted');
  }
}
