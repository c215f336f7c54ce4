import { describe, expect, it } from 'vitest';
import { IntlMessageFormat } from 'intl-messageformat';
import { DEFAULT_LOCALE, LOCALES, direction, loadCatalogues, localeForCountry, negotiateLocale, t, tHtml } from '../../web/i18n/index.js';

describe('message catalogues', () => {
  const catalogues = loadCatalogues();
  const reference = Object.keys(catalogues.get(DEFAULT_LOCALE)!).sort();

  it('speaks English, Arabic, French, Spanish and German', () => {
    expect([...LOCALES].sort()).toEqual(['ar', 'de', 'en', 'es', 'fr']);
  });

  it.each([...catalogues.keys()])('%s names its own language and no country another catalogue names', (locale) => {
    const catalogue = catalogues.get(locale)!;
    expect(catalogue['meta.name']).toBe(new Intl.DisplayNames([locale], { type: 'language' }).of(locale)!.replace(/^./, (c) => c.toLocaleUpperCase(locale)));
    const countries = catalogue['meta.countries']!.split(' ');
    for (const country of countries) expect(country).toMatch(/^[A-Z]{2}$/);
    for (const [other, theirs] of catalogues) {
      if (other !== locale)
        expect(
          countries.filter((c) => theirs['meta.countries']!.split(' ').includes(c)),
          `${locale} and ${other}`,
        ).toEqual([]);
    }
  });

  it.each([...catalogues.keys()])('%s has every key of en.json and no other', (locale) => {
    expect(Object.keys(catalogues.get(locale)!).sort()).toEqual(reference);
  });

  it.each([...catalogues.keys()])('every %s message parses as ICU MessageFormat and formats', (locale) => {
    for (const [key, source] of Object.entries(catalogues.get(locale)!)) {
      const format = new IntlMessageFormat(source, locale);
      const values = { store: 'S', seller: 'S', count: 3, quantity: 2, time: '12:00', minutes: 5, contact: 'c', otp: '1', left: 2 };
      const tags = { b: (c: unknown[]) => c.join(''), code: (c: unknown[]) => c.join('') };
      const extra = { number: '4', expiry: '1', cvv: '1', seconds: 3, digits: 3, where: 'back' };
      expect(() => format.format({ ...values, ...extra, ...tags }), `${locale} ${key}`).not.toThrow();
    }
  });
});

describe('t', () => {
  it('formats plurals for the locale', () => {
    expect(t('en', 'code.attemptsLeft', { left: 1 })).toBe('1 attempt left.');
    expect(t('en', 'code.attemptsLeft', { left: 3 })).toBe('3 attempts left.');
    expect(t('ar', 'code.attemptsLeft', { left: 2 })).toBe('بقيت محاولتان.');
    expect(t('fr', 'code.attemptsLeft', { left: 1 })).toBe('Il reste 1 essai.');
    expect(t('fr', 'code.attemptsLeft', { left: 4 })).toBe('Il reste 4 essais.');
    expect(t('es', 'countdown.minutesLeft', { minutes: 1 })).toBe('Te queda 1 minuto para pagar.');
    expect(t('es', 'countdown.minutesLeft', { minutes: 12 })).toBe('Te quedan 12 minutos para pagar.');
    expect(t('de', 'summary.items', { count: 1 })).toBe('1 Artikel');
    expect(t('de', 'countdown.summary', { minutes: 1, time: '14:05' })).toBe('Diese Sitzung läuft in 1 Minute ab, um 14:05 UTC.');
    expect(t('de', 'tooMany.message', { minutes: 3 })).toContain('3 Minuten');
  });

  it('formats numbers for the locale', () => {
    expect(t('de', 'summary.quantity', { quantity: 1200 })).toBe('Menge 1.200');
    expect(t('fr', 'summary.quantity', { quantity: 1200 })).toBe('Qté 1\u202f200');
  });

  it('escapes values in HTML and renders tags', () => {
    expect(String(tHtml('en', 'code.leadTo', { contact: '<i>x</i>' }))).toBe('We sent a 6-digit code to <strong>&lt;i&gt;x&lt;/i&gt;</strong>.');
  });

  it('knows the direction', () => {
    expect(direction('ar')).toBe('rtl');
    expect(direction('en')).toBe('ltr');
  });
});

describe('negotiateLocale', () => {
  it('prefers ?lang, then the cookie, then Accept-Language, then English', () => {
    expect(negotiateLocale({ query: 'ar', cookie: 'en', acceptLanguage: 'en' })).toBe('ar');
    expect(negotiateLocale({ query: 'xx', cookie: 'ar', acceptLanguage: 'en' })).toBe('ar');
    expect(negotiateLocale({ acceptLanguage: 'ja-JP, ar-EG;q=0.8, en;q=0.5' })).toBe('ar');
    expect(negotiateLocale({ acceptLanguage: 'ar;q=0.2, en;q=0.9' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'ja' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'fr-CA, de;q=0.5' })).toBe('fr');
    expect(negotiateLocale({})).toBe('en');
  });

  it('falls back on the cart country before English, never before what the customer asked for', () => {
    expect(negotiateLocale({ country: 'FR' })).toBe('fr');
    expect(negotiateLocale({ country: 'MEX' })).toBe('es');
    expect(negotiateLocale({ country: 'AT' })).toBe('de');
    expect(negotiateLocale({ country: 'QA' })).toBe('ar');
    expect(negotiateLocale({ country: 'JP' })).toBe('en');
    expect(negotiateLocale({ country: 'FR', acceptLanguage: 'ja, en;q=0.5' })).toBe('en');
    expect(negotiateLocale({ country: 'FR', acceptLanguage: 'ja' })).toBe('fr');
    expect(negotiateLocale({ country: 'DE', cookie: 'es' })).toBe('es');
    expect(localeForCountry('ch')).toBe('de');
    expect(localeForCountry('XX')).toBeUndefined();
  });
});
