import type { CheckoutSession } from './load-session.js';
import type { CartStatus } from '../../core/checkout/session.js';

/** Outcomes the customer is sent to successUrl with: charged, or (a manual-capture cart) authorized, the merchant capturing later. */
export const SUCCESS_STATUSES: ReadonlySet<CartStatus> = new Set(['paid', 'authorized']);

/**
 * Where a finished session sends the customer: paid or authorized → successUrl, failed or cancelled →
 * failureUrl, with `cartId` added to whatever query the merchant put there. Undefined while there is
 * no outcome to send them back with (pending, processing, abandoned).
 */
export function merchantReturnUrl(session: Pick<CheckoutSession, 'cartId' | 'cart'>, status: CartStatus): string | undefined {
  const urls = session.cart.merchantUrls;
  const target = SUCCESS_STATUSES.has(status) ? urls.successUrl : status === 'failed' || status === 'cancelled' ? urls.failureUrl : undefined;
  if (!target) return undefined;
  const url = new URL(target);
  url.searchParams.set('cartId', session.cartId);
  return url.toString();
}

/** Origins the page's forms may end up at (a no-JS post is answered with a 303 there): CSP form-action. */
export function merchantOrigins(session: Pick<CheckoutSession, 'cart'>): string[] {
  const { successUrl, failureUrl } = session.cart.merchantUrls;
  return [...new Set([new URL(successUrl).origin, new URL(failureUrl).origin])];
}
