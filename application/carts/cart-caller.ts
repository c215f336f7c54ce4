import type { CartProvenance } from '../../core/checkout/cart-provenance.js';
import type { ActiveMerchant } from '../../core/merchants/merchant-store.js';

/** Who asks for a cart, and for which merchant: what the limits, the idempotency keys and the cart's provenance depend on. */
export interface CartCaller {
  platformUuid: string;
  merchant: Pick<ActiveMerchant, 'name' | 'domains' | 'verifiedDomains'>;
  /** `api_key` when the request carried the merchant's valid API key. */
  createdWith: CartProvenance;
  /** The client address the request came from (core/client-address.ts). */
  address: string;
}

/**
 * Whose Idempotency-Keys the caller's are (core/idempotency-keys.ts): the merchant's own when it sent
 * its key, else this address's for this merchant. The trade-off: a public caller retrying from another
 * address gets a new cart; the API key makes retries safe across addresses.
 */
export function idempotencyScope(caller: CartCaller) {
  return { platformUuid: caller.platformUuid, caller: caller.createdWith === 'api_key' ? 'api_key' : `public:${caller.address}` };
}
