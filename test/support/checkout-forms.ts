import { withCookies } from '../../scripts/cookie-header.js';
import { expect } from 'vitest';

/** What a browser keeps between requests to the checkout: its CSRF cookie and the page's form token. */
export interface Visit {
  cookie: string;
  csrf: string;
  html: string;
}

/** Opens the checkout page of `cartId` as a browser would, keeping (or getting) its CSRF cookie. */
export async function visitCheckout(checkoutUrl: string, cartId: string, cookie?: string): Promise<Visit> {
  const res = await fetch(`${checkoutUrl}/?token=${cartId}`, { headers: cookie ? { cookie } : {} });
  expect(res.status).toBe(200);
  const html = await res.text();
  const setCookie = res.headers.get('set-cookie');
  return { cookie: cookie ?? setCookie!.split(';')[0]!, csrf: html.match(/name="csrf" value="([^"]+)"/)![1]!, html };
}

/**
 * Posts one of the page's forms, without following the redirect it answers with. Cookies the answer
 * sets (the browser binding a verified code gives) are kept in `at`, as a browser keeps them.
 */
export async function postCheckoutForm(
  checkoutUrl: string,
  path: string,
  cartId: string,
  at: Visit,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  const res = await fetch(`${checkoutUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: checkoutUrl, cookie: at.cookie, ...headers },
    body: new URLSearchParams({ token: cartId, csrf: at.csrf, ...fields }),
  });
  at.cookie = withCookies(at.cookie, res.headers.getSetCookie());
  return res;
}
