/**
 * Intl formatters cost far more to build than to use: building three per page render was the page
 * process's largest cost (reports/bench.md, "Where the CPU went"). One is kept per locale and
 * options; both come from small closed sets (the page's locales, ISO 4217 currencies), so the maps
 * stay small.
 */
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

function kept<F>(formats: Map<string, F>, locale: string, options: object, build: () => F): F {
  const key = `${locale}\u0000${JSON.stringify(options)}`;
  let format = formats.get(key);
  if (!format) {
    format = build();
    formats.set(key, format);
  }
  return format;
}

export function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  return kept(numberFormats, locale, options, () => new Intl.NumberFormat(locale, options));
}

export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return kept(dateTimeFormats, locale, options, () => new Intl.DateTimeFormat(locale, options));
}
