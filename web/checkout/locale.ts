import { createMiddleware } from 'hono/factory';
import { getCookie, setCookie } from 'hono/cookie';
import { DEFAULT_LOCALE, LOCALE_COOKIE, askedLocale, supportedLocale } from '../i18n/index.js';
import type { WebEnv } from '../security-headers.js';
import { locale } from './page-base.js';

const LOCALE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/**
 * The customer's language: the merchant's or the switcher's ?lang= (kept in a cookie, so the pages a
 * form post leads to stay in it), then that cookie, then Accept-Language, then (once the cart is
 * loaded, page-base.ts's loadSession) the cart's country's, then English.
 */
export function checkoutLocale(options: { production: boolean }) {
  return createMiddleware<WebEnv>(async (c, next) => {
    const query = c.req.query('lang');
    const chosen = supportedLocale(query);
    if (chosen && c.req.method === 'GET') {
      setCookie(c, LOCALE_COOKIE, chosen, { httpOnly: true, secure: options.production, sameSite: 'Lax', path: '/', maxAge: LOCALE_COOKIE_MAX_AGE_SECONDS });
    }
    const asked = askedLocale({ query, cookie: getCookie(c, LOCALE_COOKIE), acceptLanguage: c.req.header('Accept-Language') });
    c.set('locale', asked ?? DEFAULT_LOCALE);
    c.set('localeAsked', asked !== undefined);
    await next();
    c.header('Content-Language', locale(c));
  });
}
