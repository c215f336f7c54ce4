import type { Config } from '../../../config.js';
import type { Db } from '../../../db/client.js';
import type { Logger } from '../../../logger.js';
import { createOutboxOtpSender } from '../outbox.js';
import type { MessageSender } from '../sender.js';
import { createChannelOtpSender } from './by-channel.js';
import { createEmailOtpSender } from './email.js';
import { createTwilioOtpSender } from './sms.js';

/**
 * Whether a code sent on `channel` leaves as a real message (SMTP, Twilio) rather than into the
 * sandbox outbox, which reaches nobody: only real messages are counted by the code limits, so a
 * developer testing in sandbox is never locked out. It follows otpSenderFromConfig below: a channel
 * with a provider configured sends for real; production always does. An unknown channel counts as
 * real when either has a provider.
 */
export function sendsRealMessage(config: Pick<Config, 'environment' | 'otpDelivery'>, channel?: 'email' | 'sms'): boolean {
  if (config.environment === 'production') return true;
  if (channel === undefined) return config.otpDelivery.email !== undefined || config.otpDelivery.sms !== undefined;
  return config.otpDelivery[channel] !== undefined;
}

/**
 * The sender a worker uses: SMTP for email and Twilio for SMS where configured. Sandbox falls back to
 * the outbox for a channel without a provider; production refuses to start without both.
 */
export function otpSenderFromConfig(deps: { config: Config; db: Db; logger: Logger }): MessageSender {
  const { config } = deps;
  const email = config.otpDelivery.email && createEmailOtpSender(config.otpDelivery.email);
  const sms = config.otpDelivery.sms && createTwilioOtpSender(config.otpDelivery.sms);
  if (email && sms) return createChannelOtpSender({ email, sms });
  if (config.environment === 'production') {
    const missing = [
      ...(email ? [] : ['SMTP_URL and OTP_EMAIL_FROM (email)']),
      ...(sms ? [] : ['TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM (SMS)']),
    ];
    throw new Error(`Production sends one-time codes for real: set ${missing.join(' and ')}.`);
  }
  const outbox = createOutboxOtpSender({ environment: config.environment, db: deps.db, keyring: config.keyring, logger: deps.logger });
  return createChannelOtpSender({ email: email || outbox, sms: sms || outbox });
}
