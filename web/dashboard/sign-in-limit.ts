import type { Context } from 'hono';
import { clientAddress } from '../../core/client-address.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { countHit, pruneEndedWindows } from '../../core/rate-limits.js';

/**
 * Sign-in attempts per client address (TRUST_PROXY as everywhere), right or wrong, counted before the
 * form is read: RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT per RATE_LIMIT_WINDOW_SECONDS. An API key
 * cannot be guessed (256 bits), so this is against floods and scripted token probing, not luck.
 * Answers the seconds to wait, or undefined when allowed.
 */
export function signInLimit(deps: { config: Config; db: Db; logger: Logger }) {
  const { config, db, logger } = deps;
  return async (c: Context): Promise<number | undefined> => {
    const count = await countHit(db, {
      bucket: `dashboard-sign-in:${clientAddress(c, config.trustedProxyHops)}`,
      max: config.rateLimit.dashboardSignInsPerClient,
      windowSeconds: config.rateLimit.windowSeconds,
    });
    if (count.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    if (count.allowed) return undefined;
    logger.warn({ path: c.req.path }, 'dashboard sign-in refused: attempt limit reached');
    return count.retryAfterSeconds;
  };
}
