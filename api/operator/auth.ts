import { createHash, timingSafeEqual } from 'node:crypto';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** A browser's stand-in for the bearer token: a cookie and how to check it. */
export interface OperatorCookie {
  name: string;
  valid(value: string): boolean;
}

/**
 * `Authorization: Bearer <OPERATOR_TOKEN>`. Both sides are hashed first so the comparison is constant
 * time whatever the lengths. Without a configured token the operator API stays shut. With `cookie`,
 * a valid session cookie is accepted instead (for a browser, e.g. the Temporal UI calling /codec).
 */
export function operatorAuth(token: string | undefined, options: { cookie?: OperatorCookie } = {}) {
  return createMiddleware(async (c, next) => {
    const presented = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '')?.[1]?.trim();
    const bearerValid = token !== undefined && presented !== undefined && timingSafeEqual(digest(presented), digest(token));
    const cookie = options.cookie && getCookie(c, options.cookie.name);
    const cookieValid = token !== undefined && cookie !== undefined && options.cookie!.valid(cookie);
    if (!bearerValid && !cookieValid) {
      throw new ApiError('UNAUTHORIZED', 'The operator API needs Authorization: Bearer <OPERATOR_TOKEN>.', [], {
        'WWW-Authenticate': 'Bearer realm="operator"',
      });
    }
    await next();
  });
}
