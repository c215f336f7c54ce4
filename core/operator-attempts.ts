import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { bearerTokenMatches } from './bearer-token.js';
import { clientAddress, perAddress } from './client-address.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { countHitsInOrder, isExhausted, type Limit } from './rate-limits.js';

/**
 * Wrong operator (and metrics) tokens per client address (RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT per
 * RATE_LIMIT_WINDOW_SECONDS), shared by every route that takes the token (/operator, /metrics and
 * /codec of the API, /metrics of the page and of the worker): past the limit an address is refused before its token is
 * even compared, so guessing stops, while right tokens are never counted and an operator's own
 * traffic never uses it up. An IPv6 client's /48 shares RATE_LIMIT_IPV6_48_CLIENTS clients' wrong
 * tokens (core/client-address.ts perAddress).
 */
export function operatorAttempts(config: Pick<Config, 'trustedProxyHops' | 'rateLimit'>, db: Db) {
  const { rateLimit } = config;
  const limitsFor = (c: Context): Limit[] =>
    perAddress(
      'operator-auth',
      clientAddress(c, config.trustedProxyHops),
      rateLimit.operatorAuthFailuresPerClient,
      rateLimit.windowSeconds,
      rateLimit.ipv6Clients48,
    );
  return {
    /** Seconds to wait when this address (or its IPv6 /48) has used up its wrong tokens; undefined when it may try. */
    async refusedFor(c: Context): Promise<{ limit: Limit; retryAfterSeconds: number } | undefined> {
      for (const limit of limitsFor(c)) {
        const used = await isExhausted(db, limit);
        if (used.exhausted) return { limit, retryAfterSeconds: used.retryAfterSeconds };
      }
      return undefined;
    },
    /** Counts one wrong token from this address, and from its IPv6 /48. */
    async failed(c: Context): Promise<void> {
      await countHitsInOrder(db, limitsFor(c));
    },
  };
}

export type OperatorAttempts = ReturnType<typeof operatorAttempts>;

/**
 * `/metrics` of the page and of the worker: the scrape token (METRICS_TOKEN, never the operator's, so
 * what Prometheus holds opens nothing else) in plain text answers (Prometheus reads no JSON envelope),
 * with wrong tokens counted per address as on the API.
 */
export function metricsTokenGuard(config: Pick<Config, 'trustedProxyHops' | 'rateLimit' | 'metricsToken'>, db: Db) {
  const attempts = operatorAttempts(config, db);
  return createMiddleware(async (c, next) => {
    const refused = await attempts.refusedFor(c);
    if (refused) return c.text('Too many wrong operator tokens from this address.', 429, { 'Retry-After': String(refused.retryAfterSeconds) });
    if (!bearerTokenMatches(c.req.header('authorization'), config.metricsToken)) {
      await attempts.failed(c);
      return c.text('Send Authorization: Bearer <METRICS_TOKEN>.', 401, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
    }
    await next();
  });
}
