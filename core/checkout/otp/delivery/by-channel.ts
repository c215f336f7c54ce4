import type { OtpSender } from '../sender.js';

/** Sends each code through the sender of its channel: email addresses by email, phone numbers by SMS. */
export function createChannelOtpSender(senders: { email: OtpSender; sms: OtpSender }): OtpSender {
  return {
    name: `${senders.email.name}+${senders.sms.name}`,
    send: (message) => senders[message.channel].send(message),
  };
}
