import { findRetrySource, retryRefusal, type RetryRefusal } from '../../core/orders/cart-retry.js';
import type { CartOwner } from '../../core/checkout/cart-ledger.js';
import type { RetriedCart } from '../../core/checkout/cart-schema.js';
import { OPEN_STATUSES, PAID_STATUSES, type CartStatus } from '../../core/checkout/session.js';
import { LINK_REFUSAL_TEXT, mintRefusal } from '../../core/links/link-uses.js';
import { findActiveMerchant } from '../../core/merchants/merchant-store.js';
import { createCartSession, type CartSessionDeps } from '../../application/carts/create-cart-session.js';
import { ApiError } from '../../application/errors.js';

/** PostgreSQL's unique violation: here, `carts.retry_of` (migration 029), a second retry of one cart that raced the first. */
const UNIQUE_VIOLATION = '23505';

function notRetryableMessage(status: CartStatus): string {
  if (OPEN_STATUSES.has(status))
    return `This session is still open (${status}): the customer can still pay with it, so there is nothing to retry. Send them back to its page; a retry is for a session whose payment failed.`;
  if (PAID_STATUSES.has(status)) return `This session is ${status}: it was paid, so there is nothing to retry.`;
  return `This session is ${status}, not failed: only a session whose payment failed can be retried. For a new checkout, create a new cart (POST /v2/public/api/cart/).`;
}

/** A refusal in the documented envelope, naming the cart and the fix. */
function refusalError(cartId: string, refusal: RetryRefusal): ApiError {
  switch (refusal.code) {
    case 'not_retryable':
      return new ApiError('SESSION_NOT_RETRYABLE', notRetryableMessage(refusal.status), [
        { path: 'cartId', message: `is ${refusal.status}: only a failed session can be retried` },
      ]);
    case 'already_retried':
      return new ApiError(
        'ALREADY_RETRIED',
        `This session was already retried as ${refusal.retriedBy}. Send the customer to that session, or retry that one if its payment failed too.`,
        [{ path: 'cartId', message: `was already retried as ${refusal.retriedBy}` }],
      );
    case 'link_unavailable':
      return new ApiError(
        'SESSION_NOT_RETRYABLE',
        `This session was opened from payment link ${refusal.paymentLinkId}, which is ${LINK_REFUSAL_TEXT[refusal.refusal]}: a retry would be another session of a link that sells no more. For another checkout, create a new cart (POST /v2/public/api/cart/) or a new link.`,
        [{ path: 'cartId', message: `was opened from a payment link that is ${LINK_REFUSAL_TEXT[refusal.refusal]}` }],
      );
    case 'limit_reached':
      return new ApiError(
        'RETRY_LIMIT_REACHED',
        `This cart has had its ${refusal.allowed} ${refusal.allowed === 1 ? 'retry' : 'retries'} (cartObject.cart.retries of ${refusal.root}, its first session). For another checkout, create a new cart (POST /v2/public/api/cart/).`,
        [{ path: 'cartId', message: `has no retry left of the ${refusal.allowed} its cart allows` }],
      );
  }
}

/**
 * `POST /v2/merchant/carts/{cartId}/retry`: a new session for the same store and cart as a failed one
 * (docs/decisions/cart-retries.md), made by create-cart's own path, so it has create-cart's ledger row,
 * workflow start and compensation; it only adds which cart it retries. It keeps the retried cart's
 * provenance (`createdWith`): the retry is of that cart, whoever asked for it. Undefined when the cart
 * is not this merchant's.
 */
export async function retrySession(deps: CartSessionDeps, owner: CartOwner, cartId: string): Promise<RetriedCart | undefined> {
  const source = await findRetrySource(deps.db, owner, cartId);
  if (!source) return undefined;
  const refusal = retryRefusal(source);
  if (refusal) throw refusalError(cartId, refusal);
  const linkRefusal = await mintRefusal(deps.db, source.paymentLinkId);
  if (linkRefusal) throw refusalError(cartId, { code: 'link_unavailable', paymentLinkId: source.paymentLinkId!, refusal: linkRefusal });
  // The API key that let the request in is this merchant's active one: it is active.
  const merchant = await findActiveMerchant(deps.db, owner.platformUuid, owner.environment);
  if (!merchant) return undefined;
  // No Idempotency-Key is passed to create-cart (the route keeps the retry's own), so no key scope is built from the address.
  const caller = { platformUuid: owner.platformUuid, merchant, createdWith: source.createdWith, address: 'merchant-api' };
  try {
    const { response } = await createCartSession(deps, { cartObject: { store: source.store, cart: source.cart } }, caller, {
      retry: source.lineage,
      ...(source.paymentLinkId ? { paymentLinkId: source.paymentLinkId } : {}),
    });
    const { cartId: newCartId, expiresOn } = response.data;
    return { cartId: newCartId, expiresOn, url: `${deps.config.checkoutBaseUrl}/?token=${encodeURIComponent(newCartId)}` };
  } catch (err) {
    if ((err as { code?: unknown }).code !== UNIQUE_VIOLATION) throw err;
    // Another retry of this cart was made between the read and the insert: answer as the read would have.
    const now = await findRetrySource(deps.db, owner, cartId);
    throw refusalError(cartId, { code: 'already_retried', retriedBy: now?.retriedBy ?? 'another session' });
  }
}
