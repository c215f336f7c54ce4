import { randomInt } from 'node:crypto';
import type { Config } from '../../core/config.js';
import type { OtpSender } from '../../core/checkout/otp-sender.js';
import { otpHashDigest } from '../../core/checkout/otp-digest.js';
import { otpHash } from '../../core/checkout/otp-hash.js';
import { parseContact } from '../../core/checkout/contact.js';
import { OTP_POLICY } from '../../core/checkout/session.js';
import { whileHeartbeating } from '../heartbeat.js';
import type { ActivityMetrics } from '../metrics.js';

export interface SentCode {
  /**
   * otpHashDigest of each code the session accepts: the one just sent and, in sandbox only,
   * SANDBOX_OTP. The workflow keeps these, never a code nor a hash that passes the check.
   */
  acceptedDigests: string[];
}

/** One-time codes: generated here, where randomness and I/O belong, and gone once sent. */
export function createOtpActivities(deps: { config: Config; otpSender: OtpSender; metrics: ActivityMetrics }) {
  const { config, otpSender, metrics } = deps;
  return {
    /** `storeName` and `codeLifetimeMs` are absent from sends scheduled before messages named them, `locale` from those before the page spoke Arabic. */
    async sendOtp(input: { cartId: string; contact: string; storeName?: string; codeLifetimeMs?: number; locale?: string }): Promise<SentCode> {
      const contact = parseContact(input.contact);
      // The workflow validated the contact already; this guards the activity's own contract.
      if (!contact) throw new Error('sendOtp: not an email address or phone number');
      const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
      try {
        // Heartbeats only matter to sends scheduled with a heartbeat timeout (worker-loss-v1); older ones ignore them.
        await whileHeartbeating(() =>
          otpSender.send({
            cartId: input.cartId,
            channel: contact.channel,
            address: contact.address,
            addressHint: contact.hint,
            code,
            storeName: input.storeName ?? 'the store',
            codeLifetimeMs: input.codeLifetimeMs ?? OTP_POLICY.codeLifetimeMs,
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
