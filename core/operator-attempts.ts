import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { bearerTokenMatches } from './bearer-token.js';
import { clientAddress } from './client-address.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { countHit, isExhausted, type Limit } from './rate-limits.js';

/**
 * Wrong operator tokens per client address (RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT per
 * RATE_LIMIT_WINDOW_SECONDS), shared by every route that takes the token (/operator, /metrics and
 * /codec of the API, /metrics of the page and of the worker): past the limit an address is refused before its token is
 * even compared, so guessing stops, while right tokens are never counted and an operator's own
 * traffic never uses it up.
 */
export function operatorAttempts(config: Pick<Config, 'trustedProxyHops' | 'rateLimit'>, db: Db) {
  const limitFor = (c: Context): Limit => ({
    bucket: `operator-auth:${clientAddress(c, config.trustedProxyHops)}`,
    max: config.rateLimit.operatorAuthFailuresPerClient,
    windowSeconds: config.rateLimit.windowSeconds,
  });
  return {
    /** Seconds to wait when this address has used up its wrong tokens; undefined when it may try. */
    async refusedFor(c: Context): Promise<{ limit: Limit; retryAfterSeconds: number } | undefined> {
      const limit = limitFor(c);
      const used = await isExhausted(db, limit);
      return used.exhausted ? { limit, retryAfterSeconds: used.retryAfterSeconds } : undefined;
    },
    /** Counts one wrong token from this address. */
    async failed(c: Context): Promise<void> {
      await countHit(db, limitFor(c));
    },
  };
}

export type OperatorAttempts = ReturnType<typeof operatorAttempts>;

/**
 * `/metrics` of the page and of the worker: the operator token in plain text answers (Prometheus
 * reads no JSON envelope), with wrong tokens counted per address as on the API.
 */
export function metricsTokenGuard(config: Pick<Config, 'trustedProxyHops' | 'rateLimit' | 'operatorToken'>, db: Db) {
  const attempts = operatorAttempts(config, db);
  return createMiddleware(async (c, next) => {
    const refused = await attempts.refusedFor(c);
    if (refused) return c.text('Too many wrong operator tokens from this address.', 429, { 'Retry-After': String(refused.retryAfterSeconds) });
    if (!bearerTokenMatches(c.req.header('authorization'), config.operatorToken)) {
      await attempts.failed(c);
      return c.text('Send Authorization: Bearer <OPERATOR_TOKEN>.', 401, { 'WWW-Authenticate': 'Bearer realm="operator"' });
    }
    await next();
  });
}
