import type { Context } from 'hono';
import { clientAddress } from '../../core/client-address.js';
import { otpDestinationKey } from '../../core/checkout/otp-destination.js';
import { sendsRealMessage } from '../../core/checkout/otp-delivery/from-config.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { countHitsAllOrNone, pruneEndedWindows, type Limit } from '../../core/rate-limits.js';
import type { WebMetrics } from '../metrics.js';

export type OtpSendLimit = { allowed: true; refund(): Promise<void> } | { allowed: false; refusedBy: 'destination' | 'client'; retryAfterSeconds: number };

/**
 * The checkout page's abuse limits, counted in PostgreSQL (core/rate-limits.ts) per client address
 * (TRUST_PROXY as for the API): every form post, and every one-time code sent, per address and per
 * destination across carts.
 */
export function checkoutLimits(deps: { config: Config; db: Db; logger: Logger; metrics: WebMetrics }) {
  const { config, db, logger, metrics } = deps;
  const address = (c: Context) => clientAddress(c, config.trustedProxyHops);

  async function count(limits: Limit[]) {
    const hits = await countHitsAllOrNone(db, limits);
    if (hits.windowOpened) {
      pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    }
    return hits;
  }

  return {
    /** Counts one form post; answers the seconds to wait when over RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT. */
    async pageAction(c: Context): Promise<number | undefined> {
      const hits = await count([
        { bucket: `page-client:${address(c)}`, max: config.rateLimit.pageActionsPerClient, windowSeconds: config.rateLimit.windowSeconds },
      ]);
      if (hits.allowed) return undefined;
      metrics.pageActionsRefused.inc();
      return hits.retryAfterSeconds;
    },

    /**
     * Counts one code about to be sent on `channel`, against its destination (a keyed hash,
     * `contactKey`) and the client's address, both or neither; a code bound for the sandbox outbox
     * is not counted. A refused send counts nowhere; the caller refunds a send the
     * workflow then refused, so only codes that reach the sender are counted.
     */
    async otpSend(c: Context, contactKey: string | undefined, channel: 'email' | 'sms' | undefined): Promise<OtpSendLimit> {
      // The sandbox outbox reaches nobody, so there is nothing to protect: a developer running test
      // checkouts all day with one email from one machine is never refused a code.
      if (!sendsRealMessage(config, channel)) return { allowed: true, refund: async () => {} };
      const { windowSeconds, perDestination, perClient } = config.otpSends;
      const client: Limit = { bucket: `otp-client:${address(c)}`, max: perClient, windowSeconds };
      const limits = contactKey ? [{ bucket: `otp-destination:${contactKey}`, max: perDestination, windowSeconds }, client] : [client];
      const hits = await count(limits);
      if (hits.allowed) return hits;
      const refusedBy = hits.refusedBy === client ? 'client' : 'destination';
      metrics.otpSendsRefused.inc({ limit: refusedBy });
      return { allowed: false, refusedBy, retryAfterSeconds: hits.retryAfterSeconds };
    },

    contactKey: (normalizedContact: string) => otpDestinationKey(config.keyring, normalizedContact),
  };
}

export type CheckoutLimits = ReturnType<typeof checkoutLimits>;
