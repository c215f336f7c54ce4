import type { Context } from 'hono';
import { clientAddress, perAddress } from '../../core/client-address.js';
import { foldMailbox, otpDestinationKey } from '../../core/checkout/otp/destination.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { countHitsAllOrNone, pruneEndedWindows } from '../../core/rate-limits.js';

/**
 * Sign-in codes asked for, counted as the checkout counts its code sends (application/checkout/checkout-limits.ts):
 * OTP_SENDS_PER_CLIENT per client address (and its IPv6 /48) and OTP_SENDS_PER_DESTINATION per
 * mailbox (the keyed hash of its folded form, core/checkout/otp/destination.ts), per
 * OTP_SENDS_WINDOW_SECONDS, all or none. The windows are the dashboard's own, so a customer's codes
 * never spend a dashboard user's. Unlike the checkout's, they count in sandbox too: a sign-in code is a
 * credential, and an unknown address is counted as a known one, so the limit tells nobody which is which.
 * Answers the seconds to wait, or undefined when allowed.
 */
export function emailCodeLimit(deps: { config: Config; db: Db; logger: Logger }) {
  const { config, db, logger } = deps;
  return async (c: Context, email: string): Promise<number | undefined> => {
    const { windowSeconds, perClient, perDestination } = config.otpSends;
    const hits = await countHitsAllOrNone(db, [
      ...perAddress('dashboard-code-client', clientAddress(c, config.trustedProxyHops), perClient, windowSeconds, config.rateLimit.ipv6Clients48),
      { bucket: `dashboard-code-destination:${otpDestinationKey(config.keyring, foldMailbox(email))}`, max: perDestination, windowSeconds },
    ]);
    if (hits.windowOpened) pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    if (hits.allowed) return undefined;
    logger.warn({ bucket: hits.refusedBy.bucket.split(':')[0] }, 'dashboard sign-in code refused: send limit reached');
    return hits.retryAfterSeconds;
  };
}
