import { createMiddleware } from 'hono/factory';
import { bearerTokenMatches } from '../../core/bearer-token.js';
import { ApiError } from '../errors.js';

/** `Authorization: Bearer <OPERATOR_TOKEN>`. Without a configured token the operator API stays shut. */
export function operatorAuth(token: string | undefined) {
  return createMiddleware(async (c, next) => {
    if (!bearerTokenMatches(c.req.header('authorization'), token)) {
      throw new ApiError('UNAUTHORIZED', 'The operator API needs Authorization: Bearer <OPERATOR_TOKEN>.', [], {
        'WWW-Authenticate': 'Bearer realm="operator"',
      });
    }
    await next();
  });
}
