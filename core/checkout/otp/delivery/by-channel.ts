import type { MessageSender } from '../sender.js';

/** Sends each message through the sender of its channel: email addresses by email, phone numbers by SMS. */
export function createChannelOtpSender(senders: { email: MessageSender; sms: MessageSender }): MessageSender {
  return {
    name: `${senders.email.name}+${senders.sms.name}`,
    send: (message, within) => senders[message.channel].send(message, within),
  };
}
