import type { Context } from 'hono';
import { checkoutLimits as customerLimits, type OtpSendRequest } from '../../application/checkout/checkout-limits.js';
import { clientAddress } from '../../core/client-address.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import type { WebMetrics } from '../metrics.js';

export type { OtpSendLimit, OtpSendRefusal, OtpSendRequest } from '../../application/checkout/checkout-limits.js';

/**
 * The checkout page's abuse limits (application/checkout/checkout-limits.ts), per the request's client
 * address, its refusals counted in the page's metrics.
 */
export function checkoutLimits(deps: { config: Config; db: Db; logger: Logger; metrics: WebMetrics }) {
  const { config, metrics } = deps;
  const address = (c: Context) => clientAddress(c, config.trustedProxyHops);
  const limits = customerLimits({
    ...deps,
    refusals: { pageAction: () => metrics.pageActionsRefused.inc(), otpSend: (limit) => metrics.otpSendsRefused.inc({ limit }) },
  });
  return {
    /** Counts one form post; answers the seconds to wait when over RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT. */
    pageAction: (c: Context) => limits.pageAction(address(c)),
    /** Counts one code about to be sent (application/checkout/checkout-limits.ts). */
    otpSend: (c: Context, send: OtpSendRequest) => limits.otpSend(address(c), send),
    contactKey: limits.contactKey,
  };
}

export type CheckoutLimits = ReturnType<typeof checkoutLimits>;

/** How many minutes until a limit's window ends, rounded up (the catalogue says "1 minute", "12 minutes"). */
export function waitMinutes(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / 60));
}
