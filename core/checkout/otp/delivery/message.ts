import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IntlMessageFormat } from 'intl-messageformat';
import type { CodeMessage, CustomerMessage, ReminderMessage } from '../sender.js';

/**
 * The texts of the messages to customers (codes and reminders), one ICU MessageFormat catalogue per
 * locale in ./messages/<locale>.json (the hosted page's languages: a locale is added by adding its
 * file). English is the fallback.
 */
type Key =
  'subject' | 'intro' | 'lasts' | 'ignore' | 'sms' | 'reminderSubject' | 'reminderIntro' | 'reminderAction' | 'reminderCode' | 'reminderWhy' | 'reminderSms';
const DIR = fileURLToPath(new URL('./messages/', import.meta.url));
const CATALOGUES = new Map(
  readdirSync(DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file.slice(0, -'.json'.length), JSON.parse(readFileSync(`${DIR}/${file}`, 'utf8')) as Record<Key, string>] as const),
);
const RTL = new Set(['ar', 'fa', 'he', 'ur']);

/** The catalogue's locale for a requested one (`ar`, `ar-EG`), else English. */
export function otpMessageLocale(locale: string | undefined): string {
  const lower = locale?.toLowerCase() ?? '';
  if (CATALOGUES.has(lower)) return lower;
  const base = lower.split(/[-_]/)[0]!;
  return CATALOGUES.has(base) ? base : 'en';
}

export interface MessageText {
  subject: string;
  text: string;
  html: string;
  sms: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The locale a message speaks, and its texts in it. */
function speaker(message: CustomerMessage) {
  const locale = otpMessageLocale(message.locale);
  const say = (key: Key, values: Record<string, string | number> = {}) =>
    new IntlMessageFormat(CATALOGUES.get(locale)![key], locale).format<string>(values) as string;
  const page = (body: string) => `<!doctype html><html lang="${locale}" dir="${RTL.has(locale) ? 'rtl' : 'ltr'}"><body style="font-family:sans-serif">
${body}
</body></html>`;
  return { say, page };
}

/** What a one-time-code message says, in the merchant's registered name and the customer's language: a fixed template with no request text; the same facts in every channel, no link, no tracking. */
export function otpMessageText(message: CodeMessage): MessageText {
  const { say, page } = speaker(message);
  const minutes = Math.max(1, Math.round(message.codeLifetimeMs / 60_000));
  const store = message.merchantName;
  const subject = say('subject', { code: message.code, store });
  const text = [`${say('intro', { store })} ${message.code}`, '', say('lasts', { minutes }), say('ignore')].join('\n');
  const html = page(`<p>${escape(say('intro', { store }))}</p>
<p dir="ltr" style="font-size:28px;font-weight:bold;letter-spacing:4px">${message.code}</p>
<p>${escape(say('lasts', { minutes }))}</p>
<p>${escape(say('ignore'))}</p>`);
  const sms = say('sms', { code: message.code, store, minutes });
  return { subject, text, html, sms };
}

/**
 * What the abandoned-cart reminder says: the merchant's registered name, the recovery link (which names
 * neither the cart nor the customer: core/checkout/recovery-token.ts), and why it came. A fixed
 * template with no request text and no contact data; no tracking.
 */
export function reminderMessageText(message: ReminderMessage): MessageText {
  const { say, page } = speaker(message);
  const store = message.merchantName;
  const link = message.recoveryUrl;
  const subject = say('reminderSubject', { store });
  const text = [say('reminderIntro', { store }), link, '', say('reminderCode'), say('reminderWhy')].join('\n');
  const html = page(`<p>${escape(say('reminderIntro', { store }))}</p>
<p><a href="${escape(link)}" style="font-size:18px;font-weight:bold">${escape(say('reminderAction'))}</a></p>
<p dir="ltr">${escape(link)}</p>
<p>${escape(say('reminderCode'))}</p>
<p>${escape(say('reminderWhy'))}</p>`);
  const sms = say('reminderSms', { store, link });
  return { subject, text, html, sms };
}

/** The texts of any message to the customer. */
export function messageText(message: CustomerMessage): MessageText {
  return message.kind === 'code' ? otpMessageText(message) : reminderMessageText(message);
}
