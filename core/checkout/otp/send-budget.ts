import type { Config } from '../../config.js';
import type { Limit } from '../../rate-limits.js';
import type { CartProvenance } from '../cart-provenance.js';

/** Which budget refused a message: also part of the label of checkout_otp_sends_refused_total (web/metrics.ts). */
export type MessageBudgetRefusal =
  'destination' | 'sms_merchant' | 'sms_deployment' | 'sms_deployment_public' | 'email_merchant' | 'email_deployment' | 'email_deployment_public';

/**
 * A message about to be sent to a customer (a code, a reminder): to which destination (a keyed hash,
 * ./destination.ts), by which channel, for which merchant's cart, and how that cart was created
 * (`api_key` carts may spend the deployment's keyed share).
 */
export interface MessageBudgetRequest {
  contactKey: string | undefined;
  channel: 'email' | 'sms';
  platformUuid: string;
  createdWith: CartProvenance;
}

/**
 * The budgets every real message to a customer counts against, codes and reminders alike (core/rate-limits.ts
 * counts them): its destination's (OTP_SENDS_PER_DESTINATION), and its channel's hourly caps, its
 * merchant's and the deployment's (SMS_…, EMAIL_…), where a public cart's message also counts against
 * the public part of the deployment's cap (all but OTP_KEYED_SHARE_PERCENT of it), so a flood of public
 * carts leaves the merchants that send their API key a share no stranger can spend. The page adds the
 * client's own limit to a code's (web/checkout/limits.ts).
 */
export function messageBudgets(otpSends: Config['otpSends'], send: MessageBudgetRequest): Map<Limit, MessageBudgetRefusal> {
  const { windowSeconds, perDestination, keyedSharePercent } = otpSends;
  const named = new Map<Limit, MessageBudgetRefusal>();
  if (send.contactKey) named.set({ bucket: `otp-destination:${send.contactKey}`, max: perDestination, windowSeconds }, 'destination');
  const { channel } = send;
  const cap = channelCaps(otpSends, channel);
  named.set({ bucket: `otp-${channel}-merchant:${send.platformUuid}`, max: cap.perMerchant, windowSeconds: 3600 }, `${channel}_merchant`);
  named.set({ bucket: `otp-${channel}-deployment`, max: cap.perDeployment, windowSeconds: 3600 }, `${channel}_deployment`);
  if (send.createdWith !== 'api_key') {
    const publicMax = Math.floor((cap.perDeployment * (100 - keyedSharePercent)) / 100);
    named.set({ bucket: `otp-${channel}-deployment-public`, max: publicMax, windowSeconds: 3600 }, `${channel}_deployment_public`);
  }
  return named;
}

/** A channel's hourly caps: SMS_PER_… or EMAIL_PER_…_PER_HOUR. */
function channelCaps(otpSends: Config['otpSends'], channel: MessageBudgetRequest['channel']) {
  return channel === 'sms'
    ? { perMerchant: otpSends.smsPerMerchantPerHour, perDeployment: otpSends.smsPerDeploymentPerHour }
    : { perMerchant: otpSends.emailPerMerchantPerHour, perDeployment: otpSends.emailPerDeploymentPerHour };
}
