import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IntlMessageFormat } from 'intl-messageformat';
import type { OtpMessage } from '../sender.js';

/**
 * The code message's texts, one ICU MessageFormat catalogue per locale in ./messages/<locale>.json
 * (the hosted page's languages: a locale is added by adding its file). English is the fallback.
 */
type Key = 'subject' | 'intro' | 'lasts' | 'ignore' | 'sms';
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

/** What a one-time-code message says, in the merchant's registered name and the customer's language: a fixed template with no request text; the same facts in every channel, no link, no tracking. */
export function otpMessageText(message: OtpMessage): { subject: string; text: string; html: string; sms: string } {
  const locale = otpMessageLocale(message.locale);
  const say = (key: Key, values: Record<string, string | number> = {}) =>
    new IntlMessageFormat(CATALOGUES.get(locale)![key], locale).format<string>(values) as string;
  const minutes = Math.max(1, Math.round(message.codeLifetimeMs / 60_000));
  const store = message.merchantName;
  const subject = say('subject', { code: message.code, store });
  const text = [`${say('intro', { store })} ${message.code}`, '', say('lasts', { minutes }), say('ignore')].join('\n');
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const dir = RTL.has(locale) ? 'rtl' : 'ltr';
  const html = `<!doctype html><html lang="${locale}" dir="${dir}"><body style="font-family:sans-serif">
<p>${escape(say('intro', { store }))}</p>
<p dir="ltr" style="font-size:28px;font-weight:bold;letter-spacing:4px">${message.code}</p>
<p>${escape(say('lasts', { minutes }))}</p>
<p>${escape(say('ignore'))}</p>
</body></html>`;
  const sms = say('sms', { code: message.code, store, minutes });
  return { subject, text, html, sms };
}
