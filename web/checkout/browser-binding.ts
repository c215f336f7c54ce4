import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import { randomToken } from '../../core/crypto.js';
import type { CheckoutStep } from '../../core/checkout/session.js';
import { FRAMED_COOKIE } from './embedding.js';

/**
 * Who may act for a verified customer (docs/security.md, "One browser"): the browser that entered the
 * code. Verifying sets a random value in an HttpOnly cookie and the cart keeps its SHA-256 (the
 * ledger's `carts.browser_binding`, migration 040); every step after verification asks this module.
 * The cartId alone, which the merchant, its logs and its return URLs all hold, no longer acts.
 */

/** The steps only the bound browser sees: the card (with saved cards), the payment under way, the bank's challenge. */
const BOUND_STEPS: ReadonlySet<CheckoutStep> = new Set(['card', 'processing', 'authenticating']);

const COOKIE = 'checkout_browser';
const VALUE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Longer than the longest session (1,440 minutes), so no session outlives its browser's binding. */
const MAX_AGE_SECONDS = 25 * 60 * 60;

/**
 * One value per browser, for every cart it verifies: `Path=/` is what the `__Host-` prefix demands, so
 * the cart is told apart by the digest it keeps, not by the cookie's path. Lax, not Strict: the bank's
 * 3-D Secure return is a cross-site navigation, and the status page it redirects to must see it.
 */
export function browserBinding(options: { checkoutBaseUrl: string; framed?: boolean }) {
  const secure = new URL(options.checkoutBaseUrl).protocol === 'https:';
  const prefix = secure ? ('host' as const) : undefined;
  const attributes: CookieOptions = {
    httpOnly: true,
    path: '/',
    maxAge: MAX_AGE_SECONDS,
    // A page framed by the merchant is a third-party context: only a partitioned SameSite=None cookie reaches it.
    ...(options.framed ? FRAMED_COOKIE : { secure, sameSite: 'Lax' }),
    ...(prefix ? { prefix } : {}),
  };
  // A value given in this very request is not in its Cookie header yet, and the answer already acts with it.
  const given = new WeakMap<Context, string>();
  const read = (c: Context): string | undefined => {
    const value = given.get(c) ?? getCookie(c, COOKIE, prefix);
    return value && VALUE_PATTERN.test(value) ? value : undefined;
  };

  return {
    /** The cookie as the browser names it. */
    name: secure ? `__Host-${COOKIE}` : COOKIE,
    attributes,

    /** This browser's digest, giving it a value first if it has none: what a verification binds the cart to. */
    claim(c: Context): string {
      let value = read(c);
      if (!value) {
        value = randomToken(32);
        setCookie(c, COOKIE, value, attributes);
        given.set(c, value);
      }
      return bindingDigest(value);
    },

    /**
     * Whether this request may see and act on `step`: any step before verification (and a finished
     * session) is anyone's; after it, only the browser whose digest the cart keeps. A verified cart
     * with no binding (its write failed) is no browser's until one verifies again.
     */
    holds(c: Context, step: CheckoutStep, binding: string | null): boolean {
      if (!BOUND_STEPS.has(step)) return true;
      const value = read(c);
      if (!value || !binding) return false;
      const given = Buffer.from(bindingDigest(value));
      const kept = Buffer.from(binding);
      return given.length === kept.length && timingSafeEqual(given, kept);
    },
  };
}

export type BrowserBinding = ReturnType<typeof browserBinding>;

/** What the cart keeps of a browser's cookie value (`carts.browser_binding`). */
export const bindingDigest = (value: string) => createHash('sha256').update(value).digest('hex');
