import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { bearerTokenMatches } from '../../core/bearer-token.js';
import type { OperatorAttempts } from '../../core/operator-attempts.js';
import { ApiError } from '../../application/errors.js';

/** A browser's stand-in for the bearer token: a cookie and how to check it. */
export interface OperatorCookie {
  name: string;
  valid(value: string): boolean;
}

/**
 * `Authorization: Bearer <OPERATOR_TOKEN>`. Without a configured token the operator API stays shut.
 * With `cookie`, a valid session cookie is accepted instead (for a browser, e.g. the Temporal UI
 * calling /codec). With `attempts`, wrong tokens are counted per client address and an address past
 * the limit is refused (429) before its token is compared (core/operator-attempts.ts). `setting` names
 * the token in the refusal and the realm (the API's /metrics takes METRICS_TOKEN the same way).
 */
export function operatorAuth(
  token: string | undefined,
  options: { cookie?: OperatorCookie; attempts?: OperatorAttempts; setting?: 'OPERATOR_TOKEN' | 'METRICS_TOKEN' } = {},
) {
  const setting = options.setting ?? 'OPERATOR_TOKEN';
  const realm = setting === 'OPERATOR_TOKEN' ? 'operator' : 'metrics';
  const { attempts } = options;
  return createMiddleware(async (c, next) => {
    const refused = await attempts?.refusedFor(c);
    if (refused) {
      throw new ApiError(
        'RATE_LIMITED',
        `Too many wrong operator tokens from this address: at most ${refused.limit.max} per ${refused.limit.windowSeconds} s. Retry after the delay in Retry-After.`,
        [],
        { 'Retry-After': String(refused.retryAfterSeconds) },
      );
    }
    const cookie = options.cookie && getCookie(c, options.cookie.name);
    const cookieValid = token !== undefined && cookie !== undefined && options.cookie!.valid(cookie);
    if (!bearerTokenMatches(c.req.header('authorization'), token) && !cookieValid) {
      await attempts?.failed(c);
      throw new ApiError('UNAUTHORIZED', `This ${realm} endpoint needs Authorization: Bearer <${setting}>.`, [], {
        'WWW-Authenticate': `Bearer realm="${realm}"`,
      });
    }
    await next();
  });
}
