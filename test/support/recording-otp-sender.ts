import type { CustomerMessage, MessageSender } from '../../core/checkout/otp/sender.js';

/** Stands in for the SMS and email providers: keeps every code message the worker sends, in order. */
export function recordingOtpSender(): { sent: CustomerMessage[]; otpSender: MessageSender } {
  const sent: CustomerMessage[] = [];
  const otpSender: MessageSender = {
    name: 'recording',
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
  };
  return { sent, otpSender };
}
