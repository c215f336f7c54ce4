import { createMiddleware } from 'hono/factory';
import { presentedBearerToken } from '../../core/bearer-token.js';
import type { Environment } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { authenticateApiKey } from '../../core/merchants/api-keys.js';
import { ApiError } from '../../application/errors.js';

/** Who called, once `merchantAuth` has checked the key. */
export interface AuthenticatedMerchant {
  platformUuid: string;
  environment: Environment;
}

declare module 'hono' {
  interface ContextVariableMap {
    merchant: AuthenticatedMerchant;
  }
}

export const MERCHANT_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="merchant"' };

/**
 * `Authorization: Bearer <apiKey>`: the active merchant of this environment whose active key it is,
 * set as `merchant` on the context. A missing, malformed, unknown, revoked or rotated-out key, a key
 * of the other environment or of a deactivated merchant: 401, all alike.
 */
export function merchantAuth(deps: { db: Db; environment: Environment }) {
  return createMiddleware(async (c, next) => {
    const merchant = await authenticateApiKey(deps.db, presentedBearerToken(c.req.header('authorization')), deps.environment);
    if (!merchant) {
      throw new ApiError('UNAUTHORIZED', `The merchant API needs Authorization: Bearer <your ${deps.environment} API key>.`, [], MERCHANT_CHALLENGE);
    }
    c.set('merchant', merchant);
    await next();
  });
}
