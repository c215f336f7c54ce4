import type { Context } from 'hono';
import { clientAddress } from './client-address.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { countHit, isExhausted, type Limit } from './rate-limits.js';

/**
 * Wrong operator tokens per client address (RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT per
 * RATE_LIMIT_WINDOW_SECONDS), shared by every route that takes the token (/operator, /metrics and
 * /codec of the API, /metrics of the page): past the limit an address is refused before its token is
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
