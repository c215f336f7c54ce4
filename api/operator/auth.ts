import { createHash, timingSafeEqual } from 'node:crypto';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `Authorization: Bearer <OPERATOR_TOKEN>`. Both sides are hashed first so the comparison is constant
 * time whatever the lengths. Without a configured token the operator API stays shut. With `cookie`,
 * that cookie may carry the token instead (for a browser, e.g. the Temporal UI calling /codec).
 */
export function operatorAuth(token: string | undefined, options: { cookie?: string } = {}) {
  return createMiddleware(async (c, next) => {
    const presented = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim() ?? (options.cookie ? getCookie(c, options.cookie) : undefined);
    if (!token || !presented || !timingSafeEqual(digest(presented), digest(token))) {
      throw new ApiError('UNAUTHORIZED', 'The operator API needs Authorization: Bearer <OPERATOR_TOKEN>.', [], {
        'WWW-Authenticate': 'Bearer realm="operator"',
      });
    }
    await next();
  });
}
