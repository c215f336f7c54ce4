import type { OtpMessage, OtpSender } from '../../core/checkout/otp/sender.js';

/** Stands in for the SMS and email providers: keeps every code message the worker sends, in order. */
export function recordingOtpSender(): { sent: OtpMessage[]; otpSender: OtpSender } {
  const sent: OtpMessage[] = [];
  const otpSender: OtpSender = {
    name: 'recording',
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
  };
  return { sent, otpSender };
}
