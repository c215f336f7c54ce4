import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { WebEnv } from '../security-headers.js';
import { LOCALE_COOKIE, negotiateLocale } from './index.js';

/** The language of this request: as negotiated by the checkout's middleware, or negotiated now (pages outside it). */
export function requestLocale(c: Context<WebEnv>): string {
  return (
    c.get('locale') ?? negotiateLocale({ query: c.req.query('lang'), cookie: getCookie(c, LOCALE_COOKIE), acceptLanguage: c.req.header('Accept-Language') })
  );
}
