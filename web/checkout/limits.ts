import type { Context } from 'hono';
import { clientAddress, perAddress } from '../../core/client-address.js';
import type { CartProvenance } from '../../core/checkout/cart-provenance.js';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import { sendsRealMessage } from '../../core/checkout/otp/delivery/from-config.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { countHitsAllOrNone, pruneEndedWindows, type Limit } from '../../core/rate-limits.js';
import type { WebMetrics } from '../metrics.js';

/** Which limit refused a code: also the label of checkout_otp_sends_refused_total (web/metrics.ts). */
export type OtpSendRefusal =
  'destination' | 'client' | 'sms_merchant' | 'sms_deployment' | 'sms_deployment_public' | 'email_merchant' | 'email_deployment' | 'email_deployment_public';

export type OtpSendLimit = { allowed: true; refund(): Promise<void> } | { allowed: false; refusedBy: OtpSendRefusal; retryAfterSeconds: number };

/**
 * A code about to be sent: to which destination (a keyed hash), by which channel, for which merchant's
 * cart, and how that cart was created (`api_key` carts may spend the deployment's keyed share).
 */
export interface OtpSendRequest {
  contactKey: string | undefined;
  channel: 'email' | 'sms';
  platformUuid: string;
  createdWith: CartProvenance;
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
      const { pageActionsPerClient, windowSeconds, ipv6Clients48 } = config.rateLimit;
      const hits = await count(perAddress('page-client', address(c), pageActionsPerClient, windowSeconds, ipv6Clients48));
      if (hits.allowed) return undefined;
      metrics.pageActionsRefused.inc();
      return hits.retryAfterSeconds;
    },

    /**
     * Counts one code about to be sent, against its destination (a keyed hash, `contactKey`), the
     * client's address (and an IPv6 client's /48), and its channel's hourly caps: its merchant's and the
     * deployment's (SMS_…, EMAIL_…), where a public cart's code also counts against the public part
     * of the deployment's cap (all but OTP_KEYED_SHARE_PERCENT of it), so a flood of public carts leaves
     * the merchants that send their API key a share no stranger can spend. All or none; a code bound
     * for the sandbox outbox is not counted. A refused send counts nowhere; the caller refunds a send
     * the workflow then refused, so only codes that reach the sender are counted.
     */
    async otpSend(c: Context, send: OtpSendRequest): Promise<OtpSendLimit> {
      // The sandbox outbox reaches nobody, so there is nothing to protect: a developer running test
      // checkouts all day with one email from one machine is never refused a code.
      if (!sendsRealMessage(config, send.channel)) return { allowed: true, refund: async () => {} };
      const { windowSeconds, perDestination, perClient, keyedSharePercent } = config.otpSends;
      const named = new Map<Limit, OtpSendRefusal>(
        perAddress('otp-client', address(c), perClient, windowSeconds, config.rateLimit.ipv6Clients48).map((limit) => [limit, 'client']),
      );
      if (send.contactKey) named.set({ bucket: `otp-destination:${send.contactKey}`, max: perDestination, windowSeconds }, 'destination');
      const { channel } = send;
      const cap = channelCaps(config.otpSends, channel);
      named.set({ bucket: `otp-${channel}-merchant:${send.platformUuid}`, max: cap.perMerchant, windowSeconds: 3600 }, `${channel}_merchant`);
      named.set({ bucket: `otp-${channel}-deployment`, max: cap.perDeployment, windowSeconds: 3600 }, `${channel}_deployment`);
      if (send.createdWith !== 'api_key') {
        const publicMax = Math.floor((cap.perDeployment * (100 - keyedSharePercent)) / 100);
        named.set({ bucket: `otp-${channel}-deployment-public`, max: publicMax, windowSeconds: 3600 }, `${channel}_deployment_public`);
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

/** A channel's hourly caps: SMS_PER_… or EMAIL_PER_…_PER_HOUR. */
function channelCaps(otpSends: Config['otpSends'], channel: OtpSendRequest['channel']) {
  return channel === 'sms'
    ? { perMerchant: otpSends.smsPerMerchantPerHour, perDeployment: otpSends.smsPerDeploymentPerHour }
    : { perMerchant: otpSends.emailPerMerchantPerHour, perDeployment: otpSends.emailPerDeploymentPerHour };
}
