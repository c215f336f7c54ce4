import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { CartProvenance } from '../../core/checkout/cart-provenance.js';
import { findActiveMerchant, type ActiveMerchant } from '../../core/merchants/merchant-store.js';
import { apiKeyMatches } from '../../core/merchants/api-keys.js';
import { MERCHANT_CHALLENGE } from '../merchant/auth.js';
import { ApiError } from '../errors.js';

/** Who asks for a cart, and for which merchant: what the limits, the idempotency keys and the cart's provenance depend on. */
export interface CartCaller {
  platformUuid: string;
  merchant: ActiveMerchant;
  /** `api_key` when the request carried the merchant's valid API key. */
  createdWith: CartProvenance;
  /** The client address the request came from (core/client-address.ts). */
  address: string;
}

/**
 * Finds the merchant a create-cart names and whether the request carried its key; refuses an unknown
 * merchant, and one that requires its key when the request did not carry it. Runs before any
 * merchant-wide counter is charged and before anything is written, so a request without the key
 * costs such a merchant nothing.
 */
export async function identifyCartCaller(
  deps: { config: Config; db: Db },
  platformUuid: string,
  address: string,
  /** The token of the request's `Authorization: Bearer` header, if any. */
  presentedApiKey: string | undefined,
): Promise<CartCaller> {
  const merchant = await findActiveMerchant(deps.db, platformUuid, deps.config.environment);
  if (!merchant) {
    throw new ApiError(
      'UNKNOWN_PLATFORM',
      `No active ${deps.config.environment} merchant has this platformUuid. Check the value you were given for this environment.`,
      [{ path: 'cartObject.store.platformUuid', message: 'does not name an active merchant' }],
    );
  }
  const keyed = apiKeyMatches(presentedApiKey, merchant.apiKeyHash);
  if (merchant.requireApiKeyForCarts && !keyed) {
    throw new ApiError(
      'UNAUTHORIZED',
      'This merchant requires its API key on create-cart: send Authorization: Bearer <its API key>.',
      [{ path: 'Authorization', message: 'this merchant requires its API key on create-cart' }],
      MERCHANT_CHALLENGE,
    );
  }
  return { platformUuid, merchant, createdWith: keyed ? 'api_key' : 'public', address };
}

/**
 * Whose Idempotency-Keys the caller's are (core/idempotency-keys.ts): the merchant's own when it sent
 * its key, else this address's for this merchant. The trade-off: a public caller retrying from another
 * address gets a new cart; the API key makes retries safe across addresses.
 */
export function idempotencyScope(caller: CartCaller) {
  return { platformUuid: caller.platformUuid, caller: caller.createdWith === 'api_key' ? 'api_key' : `public:${caller.address}` };
}
