import type { Context } from 'hono';
import { clientAddress, perAddress } from '../../core/client-address.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { countHitsInOrder, pruneEndedWindows } from '../../core/rate-limits.js';

/**
 * Refused sign-in attempts per client address (TRUST_PROXY as everywhere), counted once the credential
 * was found wrong (web/dashboard/sign-in.ts): RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT per
 * RATE_LIMIT_WINDOW_SECONDS. An API key cannot be guessed (256 bits), so this is against floods and
 * scripted token probing, not luck; a right credential is never counted nor refused.
 * An IPv6 client's /48 shares RATE_LIMIT_IPV6_48_CLIENTS clients' attempts (core/client-address.ts perAddress).
 * Answers the seconds to wait, or undefined when allowed.
 */
export type SignInLimit = ReturnType<typeof signInLimit>;

export function signInLimit(deps: { config: Config; db: Db; logger: Logger }) {
  const { config, db, logger } = deps;
  return async (c: Context): Promise<number | undefined> => {
    const { rateLimit } = config;
    const count = await countHitsInOrder(
      db,
      perAddress(
        'dashboard-sign-in',
        clientAddress(c, config.trustedProxyHops),
        rateLimit.dashboardSignInsPerClient,
        rateLimit.windowSeconds,
        rateLimit.ipv6Clients48,
      ),
    );
    if (count.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    if (!count.refused) return undefined;
    logger.warn({ path: c.req.path }, 'dashboard sign-in refused: attempt limit reached');
    return count.refused.retryAfterSeconds;
  };
}
