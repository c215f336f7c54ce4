import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { Limit } from '../../core/rate-limits.js';
import { presentedBearerToken } from '../../core/bearer-token.js';
import { admitCart } from '../../core/checkout/cart-admission.js';
import { apiKeyHash, noteApiKeyUseByDigest } from '../../core/merchants/api-keys.js';
import { MERCHANT_CHALLENGE, scopeRefusal } from '../merchant/auth.js';
import { ApiError } from '../../application/errors.js';
import { answerCount } from './rate-limit.js';
import type { CartCaller } from '../../application/carts/cart-caller.js';

export interface CartAdmissionRequest {
  platformUuid: string;
  address: string;
  /** The request's `Authorization` header as sent: absent, the request is public; present, it must carry the merchant's active key. */
  authorization: string | undefined;
  /** The client's own limits, counted first, whoever it asks for. */
  clientLimits: Limit[];
  /** The merchant's counter for its own (keyed) requests. */
  keyedLimits: Limit[];
  /** This address's share of the merchant, then the merchant-wide ceiling of public requests. */
  publicLimits: Limit[];
}

/**
 * Counts the client, finds the merchant a create-cart names and whether the request carried its key,
 * and counts the merchant's limits: in one PostgreSQL round trip (admit_cart_request, migrations 035,
 * 039, 044 and 062, run by core/checkout/cart-admission.ts), in the order separate statements had. A
 * request refused for lacking the key a merchant requires, or for an Authorization header without the
 * merchant's active key, stops before any merchant-wide counter is charged, so it costs the merchant
 * nothing; a stranger's request over its address's share of a merchant never reaches the merchant-wide
 * counter. It writes no cart row: createCartSession has the ledger insert it, once admitted.
 */
export async function admitCartRequest(deps: { config: Config; db: Db; logger: Logger }, request: CartAdmissionRequest): Promise<CartCaller> {
  const { config, db } = deps;
  const presentedKeyHash = presentedKeyDigest(request.authorization);
  const admitted = await admitCart(db, {
    clientLimits: request.clientLimits,
    platformUuid: request.platformUuid,
    environment: config.environment,
    presentedKeyHash,
    keyedLimits: request.keyedLimits,
    publicLimits: request.publicLimits,
  });
  const refused =
    admitted.admission === 'rate_limited'
      ? request.clientLimits.concat(admitted.withKey ? request.keyedLimits : request.publicLimits)[admitted.refusedLimit!]
      : undefined;
  answerCount(db, deps.logger, {
    windowOpened: admitted.openedWindow,
    ...(refused ? { refused: { limit: refused, retryAfterSeconds: admitted.retryAfter! } } : {}),
  });
  if (admitted.admission === 'unknown_platform') {
    throw new ApiError(
      'UNKNOWN_PLATFORM',
      `No active ${config.environment} merchant has this platformUuid. Check the value you were given for this environment.`,
      [{ path: 'cartObject.store.platformUuid', message: 'does not name an active merchant' }],
    );
  }
  if (admitted.admission === 'key_scope') throw scopeRefusal('read', 'full or carts', 'create-cart');
  if (admitted.admission === 'key_required') {
    throw new ApiError(
      'UNAUTHORIZED',
      'This merchant requires its API key on create-cart: send Authorization: Bearer <its API key>.',
      [{ path: 'Authorization', message: 'this merchant requires its API key on create-cart' }],
      MERCHANT_CHALLENGE,
    );
  }
  if (admitted.admission === 'key_invalid') {
    throw new ApiError(
      'UNAUTHORIZED',
      'The Authorization header does not carry an active API key of this merchant: send Authorization: Bearer <its current API key>, or no Authorization header for a public cart.',
      [{ path: 'Authorization', message: 'is not an active API key of this merchant (unknown, revoked or rotated out)' }],
      MERCHANT_CHALLENGE,
    );
  }
  if (admitted.withKey && presentedKeyHash) {
    // The key's last use, off the answer's path: a lost write only makes the listed last use older.
    noteApiKeyUseByDigest(db, presentedKeyHash).catch((err: unknown) => deps.logger.warn({ err }, 'could not record an API key’s last use'));
  }
  return {
    platformUuid: request.platformUuid,
    merchant: { name: admitted.merchant!, domains: admitted.registeredDomains!, verifiedDomains: admitted.verifiedDomains! },
    createdWith: admitted.withKey ? 'api_key' : 'public',
    address: request.address,
  };
}

/**
 * The digest admit_cart_request compares with the merchant's active key (migration 039): null only
 * without an Authorization header, a public request. A header that is not `Bearer <token>` gives an
 * empty digest, which no key has: it is refused as a wrong key, never taken for a public request.
 */
function presentedKeyDigest(authorization: string | undefined): Buffer | null {
  if (authorization === undefined) return null;
  const token = presentedBearerToken(authorization);
  return token ? apiKeyHash(token) : Buffer.alloc(0);
}
