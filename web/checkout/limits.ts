import type { Context } from 'hono';
import { clientAddress } from '../../core/client-address.js';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import { sendsRealMessage } from '../../core/checkout/otp/delivery/from-config.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { countHitsAllOrNone, pruneEndedWindows, type Limit } from '../../core/rate-limits.js';
import type { WebMetrics } from '../metrics.js';

export type OtpSendLimit =
  | { allowed: true; refund(): Promise<void> }
  | { allowed: false; refusedBy: 'destination' | 'client' | 'sms_merchant' | 'sms_deployment'; retryAfterSeconds: number };

/** A code about to be sent: to which destination (a keyed hash), by which channel, for which merchant's cart. */
export interface OtpSendRequest {
  contactKey: string | undefined;
  channel: 'email' | 'sms';
  platformUuid: string;
}

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
     * Counts one code about to be sent, against its destination (a keyed hash, `contactKey`) and the
     * client's address, and an SMS also against its merchant's and the deployment's hourly SMS caps:
     * all or none; a code bound for the sandbox outbox is not counted. A refused send counts nowhere;
     * the caller refunds a send the workflow then refused, so only codes that reach the sender are counted.
     */
    async otpSend(c: Context, send: OtpSendRequest): Promise<OtpSendLimit> {
      // The sandbox outbox reaches nobody, so there is nothing to protect: a developer running test
      // checkouts all day with one email from one machine is never refused a code.
      if (!sendsRealMessage(config, send.channel)) return { allowed: true, refund: async () => {} };
      const { windowSeconds, perDestination, perClient, smsPerMerchantPerHour, smsPerDeploymentPerHour } = config.otpSends;
      const named = new Map<Limit, Exclude<OtpSendLimit, { allowed: true }>['refusedBy']>([
        [{ bucket: `otp-client:${address(c)}`, max: perClient, windowSeconds }, 'client'],
      ]);
      if (send.contactKey) named.set({ bucket: `otp-destination:${send.contactKey}`, max: perDestination, windowSeconds }, 'destination');
      if (send.channel === 'sms') {
        named.set({ bucket: `otp-sms-merchant:${send.platformUuid}`, max: smsPerMerchantPerHour, windowSeconds: 3600 }, 'sms_merchant');
        named.set({ bucket: 'otp-sms-deployment', max: smsPerDeploymentPerHour, windowSeconds: 3600 }, 'sms_deployment');
      }
      const hits = await count([...named.keys()]);
      if (hits.allowed) return hits;
      const refusedBy = named.get(hits.refusedBy)!;
      metrics.otpSendsRefused.inc({ limit: refusedBy });
      return { allowed: false, refusedBy, retryAfterSeconds: hits.retryAfterSeconds };
    },

    /** The keyed hash the per-destination count uses, of readContact's `destination` (sub-addresses folded). */
    contactKey: (destination: string) => otpDestinationKey(config.keyring, destination),
  };
}

export type CheckoutLimits = ReturnType<typeof checkoutLimits>;
