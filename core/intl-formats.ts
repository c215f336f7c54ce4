import { getOrCreate } from './maps.js';

/**
 * Intl formatters cost far more to build than to use: building three per page render was the page
 * process's largest cost (reports/bench.md, "Where the CPU went"). One is kept per locale and
 * options; both come from small closed sets (the page's locales, ISO 4217 currencies), so the maps
 * stay small.
 */
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const formatKey = (locale: string, options: object) => `${locale}\u0000${JSON.stringify(options)}`;

export function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  return getOrCreate(numberFormats, formatKey(locale, options), () => new Intl.NumberFormat(locale, options));
}

export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return getOrCreate(dateTimeFormats, formatKey(locale, options), () => new Intl.DateTimeFormat(locale, options));
}
