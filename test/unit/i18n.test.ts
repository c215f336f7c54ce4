import { describe, expect, it } from 'vitest';
import { IntlMessageFormat } from 'intl-messageformat';
import { DEFAULT_LOCALE, LOCALES, direction, loadCatalogues, negotiateLocale, t, tHtml } from '../../web/i18n/index.js';

describe('message catalogues', () => {
  const catalogues = loadCatalogues();
  const reference = Object.keys(catalogues.get(DEFAULT_LOCALE)!).sort();

  it('speaks English and Arabic', () => {
    expect(LOCALES).toEqual(expect.arrayContaining(['en', 'ar']));
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
    expect(negotiateLocale({ acceptLanguage: 'fr-FR, ar-EG;q=0.8, en;q=0.5' })).toBe('ar');
    expect(negotiateLocale({ acceptLanguage: 'ar;q=0.2, en;q=0.9' })).toBe('en');
    expect(negotiateLocale({ acceptLanguage: 'fr' })).toBe('en');
    expect(negotiateLocale({})).toBe('en');
  });
});
