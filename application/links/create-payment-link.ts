import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { processorCurrencies } from '../../core/checkout/processor-amounts.js';
import type { CartOwner } from '../../core/checkout/cart-ledger.js';
import { findActiveMerchant } from '../../core/merchants/merchant-store.js';
import { cartTotal } from '../../core/money.js';
import type { CreatePaymentLinkRequest, PaymentLink } from '../../core/links/payment-link-schema.js';
import { insertPaymentLink } from '../../core/links/payment-links.js';
import { paymentLinkOf } from '../../core/links/payment-link-views.js';
import { assertChargeable } from '../chargeable-amount.js';
import { assertCartUrlsAllowed } from '../carts/url-policy.js';
import { ApiError, validationError } from '../errors.js';

/**
 * Creates a payment link after the checks create-cart makes of the same cartObject (the amount the
 * processor can charge, the URL policy of the environment), so that every visit can mint its session
 * through create-cart's path without a refusal the merchant never saw. The merchant API and the
 * dashboard both create links here; refusals are the API's envelope, naming the field.
 */
export async function createPaymentLink(deps: { config: Config; db: Db }, owner: CartOwner, request: CreatePaymentLinkRequest): Promise<PaymentLink> {
  const { config, db } = deps;
  const { store, cart } = request.cartObject;
  const problems = [];
  if (store.platformUuid.toLowerCase() !== owner.platformUuid.toLowerCase())
    problems.push({ path: 'cartObject.store.platformUuid', message: `must be your own platformUuid, ${owner.platformUuid}` });
  const expiresAt = request.expiresAt === undefined ? undefined : new Date(request.expiresAt);
  if (expiresAt && expiresAt.getTime() <= Date.now())
    problems.push({ path: 'expiresAt', message: 'must be in the future; leave it out for a link that never expires' });
  if (problems.length > 0) throw validationError(undefined, [], problems);

  assertChargeable(processorCurrencies(config.payments.processor), cart.currency, cartTotal(cart.items), {
    currency: 'cartObject.cart.currency',
    amount: 'cartObject.cart.items',
  });
  const merchant = await findActiveMerchant(db, owner.platformUuid, owner.environment);
  // Authenticated a moment ago: only a deactivation in between gets here.
  if (!merchant) throw new ApiError('UNAUTHORIZED', 'This merchant is no longer active.');
  assertCartUrlsAllowed({ cartObject: request.cartObject }, config.environment, merchant.domains, merchant.verifiedDomains);

  const row = await insertPaymentLink(db, { ...owner, cartObject: request.cartObject, maxUses: request.maxUses, expiresAt });
  return paymentLinkOf(row, undefined, config.checkoutBaseUrl);
}
