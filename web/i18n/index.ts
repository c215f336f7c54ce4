import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import countries from 'i18n-iso-countries';
import { IntlMessageFormat } from 'intl-messageformat';
import { escapeToBuffer, raw, type HtmlEscapedString } from 'hono/utils/html';
import { DEFAULT_LOCALE, LOCALES } from '../../core/locales.js';
import { getOrCreate } from '../../core/maps.js';

/**
 * The hosted page's texts, one ICU MessageFormat catalogue per locale in ./messages/<locale>.json.
 * A locale is added by adding its file (with `meta.dir`, `meta.name` and `meta.countries`) and its code to
 * core/locales.ts, where the API reference reads the list too. English is the reference catalogue and the
 * fallback for anything missing.
 */
export { DEFAULT_LOCALE, LOCALES };
const MESSAGES_DIR = fileURLToPath(new URL('./messages/', import.meta.url));

export type Catalogue = Record<string, string>;

export function loadCatalogues(dir = MESSAGES_DIR): Map<string, Catalogue> {
  const catalogues = new Map<string, Catalogue>();
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.json')) continue;
    catalogues.set(file.slice(0, -'.json'.length), JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Catalogue);
  }
  return catalogues;
}

const catalogues = loadCatalogues();
if (!catalogues.has(DEFAULT_LOCALE)) throw new Error(`web/i18n/messages/${DEFAULT_LOCALE}.json is missing`);
if ([...catalogues.keys()].join() !== [...LOCALES].sort().join())
  throw new Error(`web/i18n/messages/ has ${[...catalogues.keys()].join(', ')}; core/locales.ts lists ${LOCALES.join(', ')}: the two must agree`);
export type MessageKey = keyof typeof import('./messages/en.json');
export type Values = Record<string, string | number>;

const compiled = new Map<string, IntlMessageFormat>();
function formatter(locale: string, key: MessageKey): IntlMessageFormat {
  return getOrCreate(compiled, `${locale}\u0000${key}`, () => {
    const source = catalogues.get(locale)?.[key] ?? catalogues.get(DEFAULT_LOCALE)![key];
    if (source === undefined) throw new Error(`no message ${key}`);
    return new IntlMessageFormat(source, locale);
  });
}

const plainTags = { b: (chunks: unknown[]) => chunks.join(''), code: (chunks: unknown[]) => chunks.join('') };

/**
 * Messages without values come out the same every time: formatted once. A page render asks for a few
 * dozen, and formatting them again was a tenth of the page process's CPU (reports/bench.md).
 */
const fixedMessages = new Map<string, string>();

/** A message as plain text (rich-text tags such as <b> keep only their content). */
export function t(locale: string, key: MessageKey, values?: Values): string {
  if (values === undefined) return getOrCreate(fixedMessages, `${locale}\u0000${key}`, () => formatPlain(locale, key, {}));
  return formatPlain(locale, key, values);
}

function formatPlain(locale: string, key: MessageKey, values: Values): string {
  const out = formatter(locale, key).format<string>({ ...plainTags, ...values });
  return Array.isArray(out) ? out.join('') : String(out);
}

/** A message as HTML for hono/html: values escaped, <b> and <code> tags rendered. */
export function tHtml(locale: string, key: MessageKey, values: Values = {}): HtmlEscapedString {
  const escaped: Values = {};
  for (const [name, value] of Object.entries(values)) escaped[name] = typeof value === 'string' ? escapeHtml(value) : value;
  const tags = {
    b: (chunks: unknown[]) => `<strong>${chunks.join('')}</strong>`,
    code: (chunks: unknown[]) => `<code>${chunks.join('')}</code>`,
  };
  const out = formatter(locale, key).format<string>({ ...escaped, ...tags });
  return raw(Array.isArray(out) ? out.join('') : String(out));
}

function escapeHtml(value: string): string {
  const buffer: [string] = [''];
  escapeToBuffer(value, buffer);
  return buffer[0];
}

/** `rtl` for Arabic and the like, from the catalogue's `meta.dir`. */
export function direction(locale: string): 'ltr' | 'rtl' {
  return catalogues.get(locale)?.['meta.dir'] === 'rtl' ? 'rtl' : 'ltr';
}

/** A supported locale for a tag such as `ar`, `ar-EG` or `EN`, or undefined. */
export function supportedLocale(tag: string | undefined): string | undefined {
  if (!tag) return undefined;
  const lower = tag.trim().toLowerCase();
  if (catalogues.has(lower)) return lower;
  const base = lower.split(/[-_]/)[0]!;
  return catalogues.has(base) ? base : undefined;
}

/** The best supported locale of an Accept-Language header, by quality then order. */
export function fromAcceptLanguage(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number(q.slice(2)) : 1;
      return { tag: tag!, quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => entry.quality > 0 && entry.tag)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const { tag } of ranked) {
    const locale = supportedLocale(tag);
    if (locale) return locale;
  }
  return undefined;
}

/**
 * The countries whose customers most likely read a locale, from each catalogue's `meta.countries`
 * (ISO 3166-1 alpha-2, space-separated): the first catalogue to name a country has it.
 */
const COUNTRY_LOCALES = new Map<string, string>();
for (const [locale, catalogue] of catalogues) {
  for (const country of (catalogue['meta.countries'] ?? '').split(/\s+/).filter(Boolean)) {
    if (!COUNTRY_LOCALES.has(country)) COUNTRY_LOCALES.set(country, locale);
  }
}

/** The locale most customers in this country read (`FR`, `FRA`, `be` → fr), or undefined. */
export function localeForCountry(country: string | undefined): string | undefined {
  if (!country) return undefined;
  const upper = country.trim().toUpperCase();
  return COUNTRY_LOCALES.get(upper.length === 3 ? (countries.alpha3ToAlpha2(upper) ?? upper) : upper);
}

/** What the customer asked for: the merchant's `?lang=` hint, then the `checkout_lang` cookie, then Accept-Language. */
export function askedLocale(from: { query?: string; cookie?: string; acceptLanguage?: string }): string | undefined {
  return supportedLocale(from.query) ?? supportedLocale(from.cookie) ?? fromAcceptLanguage(from.acceptLanguage);
}

/**
 * What the customer asked for, else the language of the cart's country (a French cart is most likely
 * paid by someone who reads French), else English.
 */
export function negotiateLocale(from: { query?: string; cookie?: string; acceptLanguage?: string; country?: string }): string {
  return askedLocale(from) ?? localeForCountry(from.country) ?? DEFAULT_LOCALE;
}

export const LOCALE_COOKIE = 'checkout_lang';

/** Whether the reference catalogue has this key (for keys built at run time, e.g. `refusal.<code>`). */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(catalogues.get(DEFAULT_LOCALE)!, key);
}
