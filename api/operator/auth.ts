import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { bearerTokenMatches } from '../../core/bearer-token.js';
import { ApiError } from '../errors.js';

/** A browser's stand-in for the bearer token: a cookie and how to check it. */
export interface OperatorCookie {
  name: string;
  valid(value: string): boolean;
}

/**
 * `Authorization: Bearer <OPERATOR_TOKEN>`. Without a configured token the operator API stays shut.
 * With `cookie`, a valid session cookie is accepted instead (for a browser, e.g. the Temporal UI
 * calling /codec).
 */
export function operatorAuth(token: string | undefined, options: { cookie?: OperatorCookie } = {}) {
  return createMiddleware(async (c, next) => {
    const cookie = options.cookie && getCookie(c, options.cookie.name);
    const cookieValid = token !== undefined && cookie !== undefined && options.cookie!.valid(cookie);
    if (!bearerTokenMatches(c.req.header('authorization'), token) && !cookieValid) {
      throw new ApiError('UNAUTHORIZED', 'The operator API needs Authorization: Bearer <OPERATOR_TOKEN>.', [], {
        'WWW-Authenticate': 'Bearer realm="operator"',
      });
    }
    await next();
  });
}
