import nodemailer from 'nodemailer';
import type { OtpSender } from '../sender.js';
import { otpMessageText } from './message.js';

/**
 * One-time codes by email over SMTP (nodemailer): `smtp://user:pass@host:587` (STARTTLS when the
 * server offers it) or `smtps://…:465`. A failure throws, so the activity retries and the page says
 * the code could not be sent.
 */
export function createEmailOtpSender(options: { smtpUrl: string; from: string; timeoutMs?: number }): OtpSender {
  const timeout = options.timeoutMs ?? 10_000;
  const url = new URL(options.smtpUrl);
  url.searchParams.set('connectionTimeout', String(timeout));
  url.searchParams.set('greetingTimeout', String(timeout));
  url.searchParams.set('socketTimeout', String(timeout));
  const transport = nodemailer.createTransport(url.toString());
  return {
    name: 'smtp',
    async send(message) {
      const { subject, text, html } = otpMessageText(message);
      await transport.sendMail({ from: options.from, to: message.address, subject, text, html });
    },
  };
}
