import { perAddress } from '../../core/client-address.js';
import { otpDestinationKey } from '../../core/checkout/otp/destination.js';
import { sendsRealMessage } from '../../core/checkout/otp/delivery/from-config.js';
import { messageBudgets, type MessageBudgetRefusal, type MessageBudgetRequest } from '../../core/checkout/otp/send-budget.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { countHitsAllOrNone, pruneEndedWindows, type Limit } from '../../core/rate-limits.js';

/** Which limit refused a code: also the label of checkout_otp_sends_refused_total (web/metrics.ts). */
export type OtpSendRefusal = 'client' | MessageBudgetRefusal;

export type OtpSendLimit = { allowed: true; refund(): Promise<void> } | { allowed: false; refusedBy: OtpSendRefusal; retryAfterSeconds: number };

/** A code about to be sent (core/checkout/otp/send-budget.ts). */
export type OtpSendRequest = MessageBudgetRequest;

/** What a door counts of the refusals (the page's metrics, web/metrics.ts). */
export interface LimitRefusals {
  pageAction(): void;
  otpSend(limit: OtpSendRefusal): void;
}

/**
 * The customer's abuse limits, counted in PostgreSQL (core/rate-limits.ts) per client address
 * (TRUST_PROXY as for the API): every action, and every one-time code sent, per address and per
 * destination across carts. The page's form posts and the sandbox helpers (api/sandbox/), which act
 * as a customer's browser, count against the same windows.
 */
export function checkoutLimits(deps: { config: Config; db: Db; logger: Logger; refusals?: LimitRefusals }) {
  const { config, db, logger, refusals } = deps;

  async function count(limits: Limit[]) {
    const hits = await countHitsAllOrNone(db, limits);
    if (hits.windowOpened) {
      pruneEndedWindows(db).catch((err: unknown) => logger.warn({ err }, 'pruning ended rate-limit windows failed'));
    }
    return hits;
  }

  return {
    /** Counts one action of `address`; answers the seconds to wait when over RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT. */
    async pageAction(address: string): Promise<number | undefined> {
      const { pageActionsPerClient, windowSeconds, ipv6Clients48 } = config.rateLimit;
      const hits = await count(perAddress('page-client', address, pageActionsPerClient, windowSeconds, ipv6Clients48));
      if (hits.allowed) return undefined;
      refusals?.pageAction();
      return hits.retryAfterSeconds;
    },

    /**
     * Counts one code about to be sent, against the client's address (and an IPv6 client's /48) and
     * the budgets every message to a customer counts against (messageBudgets: its destination, its
     * channel's merchant and deployment caps). All or none; a code bound for the sandbox outbox is not
     * counted. A refused send counts nowhere; the caller refunds a send the workflow then refused, so
     * only codes that reach the sender are counted.
     */
    async otpSend(address: string, send: OtpSendRequest): Promise<OtpSendLimit> {
      // The sandbox outbox reaches nobody, so there is nothing to protect: a developer running test
      // checkouts all day with one email from one machine is never refused a code.
      if (!sendsRealMessage(config, send.channel)) return { allowed: true, refund: async () => {} };
      const { windowSeconds, perClient } = config.otpSends;
      const named = new Map<Limit, OtpSendRefusal>(
        perAddress('otp-client', address, perClient, windowSeconds, config.rateLimit.ipv6Clients48).map((limit) => [limit, 'client']),
      );
      for (const [limit, name] of messageBudgets(config.otpSends, send)) named.set(limit, name);
      const hits = await count([...named.keys()]);
      if (hits.allowed) return hits;
      const refusedBy = named.get(hits.refusedBy)!;
      refusals?.otpSend(refusedBy);
      return { allowed: false, refusedBy, retryAfterSeconds: hits.retryAfterSeconds };
    },

    /** The keyed hash the per-destination count uses, of readContact's `destination` (sub-addresses folded). */
    contactKey: (destination: string) => otpDestinationKey(config.keyring, destination),
  };
}
