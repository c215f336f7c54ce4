import { randomInt } from 'node:crypto';
import type { Config } from '../../core/config.js';
import type { MessageSender } from '../../core/checkout/otp/sender.js';
import { otpHashDigest } from '../../core/checkout/otp/digest.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { parseContact } from '../../core/checkout/contact.js';
import { whileHeartbeating } from '../shared/heartbeat.js';
import type { ActivityMetrics } from '../metrics.js';

export interface SentCode {
  /**
   * otpHashDigest of each code the session accepts: the one just sent and, in sandbox only,
   * SANDBOX_OTP. The workflow keeps these, never a code nor a hash that passes the check.
   */
  acceptedDigests: string[];
}

/** One-time codes: generated here, where randomness and I/O belong, and gone once sent. */
export function createOtpActivities(deps: {
  config: Config;
  otpSender: MessageSender;
  metrics: ActivityMetrics;
  /** The merchant's registered name for a cart (its ledger row), the only name a code message carries. */
  merchantNameOf: (cartId: string) => Promise<string | undefined>;
}) {
  const { config, otpSender, metrics, merchantNameOf } = deps;
  return {
    /**
     * `locale` is the page's language; English when absent. The message names the merchant the cart
     * row records, never text from the create-cart request.
     */
    async sendOtp(input: { cartId: string; contact: string; codeLifetimeMs: number; locale?: string }): Promise<SentCode> {
      const contact = parseContact(input.contact);
      // The workflow validated the contact already; this guards the activity's own contract.
      if (!contact) throw new Error('sendOtp: not an email address or phone number');
      // create-cart writes the row before it starts the session, so a cart without one is a bug, not a case to word around.
      const merchantName = await merchantNameOf(input.cartId);
      if (merchantName === undefined) throw new Error('sendOtp: this cart has no ledger row to name its merchant');
      const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
      try {
        // Run as an activity task (sessions from before release-1.1), a send heartbeats, so one
        // whose worker died is retried on another while the page still waits.
        await whileHeartbeating(() =>
          otpSender.send({
            kind: 'code',
            cartId: input.cartId,
            channel: contact.channel,
            address: contact.address,
            addressHint: contact.hint,
            code,
            merchantName,
            codeLifetimeMs: input.codeLifetimeMs,
            ...(input.locale ? { locale: input.locale } : {}),
          }),
        );
      } catch (error) {
        metrics.otpSends.inc({ channel: contact.channel, result: 'failed' });
        throw error;
      }
      metrics.otpSends.inc({ channel: contact.channel, result: 'sent' });
      const accepted = config.environment === 'sandbox' ? [code, config.sandboxOtp] : [code];
      return { acceptedDigests: accepted.map((c) => otpHashDigest(otpHash(config.keyring, input.cartId, c))) };
    },
  };
}
