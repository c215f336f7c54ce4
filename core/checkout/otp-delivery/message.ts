import type { OtpMessage } from '../otp-sender.js';

/** What a one-time-code message says, in the store's name; the same facts in every channel, no link, no tracking. */
export function otpMessageText(message: OtpMessage): { subject: string; text: string; html: string; sms: string } {
  const minutes = Math.max(1, Math.round(message.codeLifetimeMs / 60_000));
  const lasts = `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const subject = `${message.code} is your ${message.storeName} checkout code`;
  const text = [
    `Your code to pay ${message.storeName}: ${message.code}`,
    '',
    `It works for ${lasts}. Type it on the checkout page that asked for it.`,
    'If you did not ask for it, ignore this message: nobody can pay with it without your card.',
  ].join('\n');
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<p>Your code to pay ${escape(message.storeName)}:</p>
<p style="font-size:28px;font-weight:bold;letter-spacing:4px">${message.code}</p>
<p>It works for ${lasts}. Type it on the checkout page that asked for it.</p>
<p>If you did not ask for it, ignore this message: nobody can pay with it without your card.</p>
</body></html>`;
  const sms = `${message.code} is your ${message.storeName} checkout code. It works for ${lasts}. Do not share it.`;
  return { subject, text, html, sms };
}
