import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';
import { bearerTokenMatches } from '../../core/bearer-token.js';
import { clientAddress } from '../../core/client-address.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { countHit, isExhausted, type Limit } from '../../core/rate-limits.js';
import { ApiError } from '../errors.js';

/** A browser's stand-in for the bearer token: a cookie and how to check it. */
export interface OperatorCookie {
  name: string;
  valid(value: string): boolean;
}

/** Wrong operator tokens allowed per client address and window (RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT). */
export interface OperatorAttempts {
  db: Db;
  trustedProxyHops: number;
  max: number;
  windowSeconds: number;
}

/** The attempt limit of a process's operator routes, from its configuration. */
export function operatorAttempts(config: Pick<Config, 'trustedProxyHops' | 'rateLimit'>, db: Db): OperatorAttempts {
  return { db, trustedProxyHops: config.trustedProxyHops, max: config.rateLimit.operatorAuthFailuresPerClient, windowSeconds: config.rateLimit.windowSeconds };
}

const unauthorized = () =>
  new ApiError('UNAUTHORIZED', 'The operator API needs Authorization: Bearer <OPERATOR_TOKEN>.', [], { 'WWW-Authenticate': 'Bearer realm="operator"' });

const tooManyAttempts = (limit: Limit, retryAfterSeconds: number) =>
  new ApiError(
    'RATE_LIMITED',
    `Too many wrong operator tokens from this address: at most ${limit.max} per ${limit.windowSeconds} s. Retry after the delay in Retry-After.`,
    [],
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );

/**
 * `Authorization: Bearer <OPERATOR_TOKEN>`. Without a configured token the operator API stays shut.
 * With `cookie`, a valid session cookie is accepted instead (for a browser, e.g. the Temporal UI
 * calling /codec). With `attempts`, the wrong tokens of a client address are counted (/operator,
 * /metrics and /codec share the count): past the limit, that address is refused before its token is
 * even compared, so guesses stop, while an operator's own requests (right token) never use it up.
 */
export function operatorAuth(token: string | undefined, options: { cookie?: OperatorCookie; attempts?: OperatorAttempts } = {}) {
  const { attempts } = options;
  const limitFor = (c: Context): Limit | undefined =>
    attempts && { bucket: `operator-auth:${clientAddress(c, attempts.trustedProxyHops)}`, max: attempts.max, windowSeconds: attempts.windowSeconds };
  return createMiddleware(async (c, next) => {
    const limit = limitFor(c);
    if (limit && attempts) {
      const used = await isExhausted(attempts.db, limit);
      if (used.exhausted) throw tooManyAttempts(limit, used.retryAfterSeconds);
    }
    const cookie = options.cookie && getCookie(c, options.cookie.name);
    const cookieValid = token !== undefined && cookie !== undefined && options.cookie!.valid(cookie);
    if (!bearerTokenMatches(c.req.header('authorization'), token) && !cookieValid) {
      if (limit && attempts) await countHit(attempts.db, limit);
      throw unauthorized();
    }
    await next();
  });
}
