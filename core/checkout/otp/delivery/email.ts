import nodemailer from 'nodemailer';
import type { MessageSender } from '../sender.js';
import { messageText } from './message.js';

/**
 * One-time codes and reminders by email over SMTP (nodemailer): `smtp://user:pass@host:587` (STARTTLS when the
 * server offers it) or `smtps://…:465`. A failure throws, so the activity retries (and the page says
 * a code could not be sent).
 */
export function createEmailOtpSender(options: SmtpSettings): MessageSender {
  const transport = smtpTransport(options);
  return {
    name: 'smtp',
    async send(message) {
      const { subject, text, html } = messageText(message);
      await transport.sendMail({ from: options.from, to: message.address, subject, text, html }).catch((err: unknown) => {
        throw smtpFailure(err);
      });
    },
  };
}

export interface SmtpSettings {
  smtpUrl: string;
  from: string;
  timeoutMs?: number;
}

/** A nodemailer transport to SMTP_URL, every wait bounded: the customers' messages and the dashboard's mail (core/people/mail/) share it. */
export function smtpTransport(options: SmtpSettings) {
  const timeout = options.timeoutMs ?? 10_000;
  const url = new URL(options.smtpUrl);
  url.searchParams.set('connectionTimeout', String(timeout));
  url.searchParams.set('greetingTimeout', String(timeout));
  url.searchParams.set('socketTimeout', String(timeout));
  return nodemailer.createTransport(url.toString());
}

/**
 * What a failed send throws: nodemailer's kind of failure and the server's status codes, never its
 * text, which names the recipient (`550 5.1.1 <jane@example.com>: user unknown`) and would carry the
 * contact into the activity's failure and the worker's log.
 */
export function smtpFailure(err: unknown): Error {
  const { code, responseCode, response } = (err ?? {}) as { code?: unknown; responseCode?: unknown; response?: unknown };
  const enhanced = typeof response === 'string' ? /^\d{3}[ -](\d\.\d{1,3}\.\d{1,3})\b/.exec(response)?.[1] : undefined;
  const status = [typeof responseCode === 'number' ? String(responseCode) : undefined, enhanced].filter(Boolean).join(' ');
  return new Error(
    `SMTP send failed${typeof code === 'string' && /^E[A-Z]+$/.test(code) ? ` (${code})` : ''}${status ? `: the server answered ${status}` : ''}`,
  );
}
