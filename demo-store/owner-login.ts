import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import { perClientLimit } from './client-limit.js';

/** The store owner's session cookie: signed, HttpOnly, SameSite=Strict, for the orders page and refunds. */
export const OWNER_COOKIE = 'demo_store_owner';
const SESSION_MS = 8 * 60 * 60 * 1000;
/** Where signing in goes when `next` is missing or would leave the store. */
const DEFAULT_NEXT = '/orders';
/** Wrong passwords allowed per minute from one client address: enough for a typo, too few to guess. */
const FAILURES_PER_MINUTE = 10;

/**
 * The owner's password, kept in `file` (created on first start, readable by its owner only). A new
 * random one is written when the file does not exist yet; `created` says so, for the start banner.
 */
export function ownerPasswordIn(file: string): { password: string; created: boolean } {
  try {
    const password = readFileSync(file, 'utf8').trim();
    if (password.length >= 16) return { password, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const password = randomBytes(18).toString('base64url');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return { password, created: true };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Signs the owner in and tells a signed-in request. The cookie carries only its expiry, signed with a
 * key derived from the password: changing the password ends every session.
 */
export function ownerLogin(settings: { password: string; secure: boolean }) {
  const key = createHmac('sha256', settings.password).update('demo-store owner session').digest();
  const expected = digest(settings.password);
  // Per client address: a count for the whole store would let anyone lock the owner out with ten
  // wrong passwords a minute. (The password is 144 random bits: the count only slows a guesser.)
  const failures = perClientLimit({ max: FAILURES_PER_MINUTE, windowMs: 60_000, trackedClients: 10_000 });

  return {
    /** Whether this request carries a valid, unexpired owner session. */
    async signedIn(c: Context): Promise<boolean> {
      const value = await getSignedCookie(c, key, OWNER_COOKIE);
      return typeof value === 'string' && /^\d+$/.test(value) && Number(value) > Date.now();
    },

    /** Too many wrong passwords this minute from this address: the caller answers 429 without checking this one. */
    throttled(address: string): boolean {
      return failures.reached(address);
    },

    /** Checks the password (in constant time) and, when it matches, sets the session cookie. */
    async signIn(c: Context, password: string, address: string): Promise<boolean> {
      if (!timingSafeEqual(digest(password), expected)) {
        failures.count(address);
        return false;
      }
      await setSignedCookie(c, OWNER_COOKIE, String(Date.now() + SESSION_MS), key, {
        path: '/',
        httpOnly: true,
        sameSite: 'Strict',
        secure: settings.secure,
        maxAge: SESSION_MS / 1000,
      });
      return true;
    },

    signOut(c: Context): void {
      deleteCookie(c, OWNER_COOKIE, { path: '/', secure: settings.secure });
    },
  };
}

/**
 * Where to go after signing in: a page of this store only, never another site. `next` is read as the
 * browser will read it (a URL relative to the store's `origin`: tabs and newlines dropped, `\` as `/`,
 * so `/\t/evil.example` is `//evil.example`) and kept only when that lands on the store's own origin.
 * What is returned is that URL's path, query and fragment, and only when the browser, reading them
 * back as a Location, lands on that same URL: resolving dot segments (`/.//evil.example`,
 * `/%2e//evil.example`, `/orders/..//evil.example`) leaves a path of `//evil.example`, which the
 * browser would take for another host.
 */
export function safeNext(next: unknown, origin: string): string {
  if (typeof next !== 'string' || !next.startsWith('/')) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return DEFAULT_NEXT;
  }
  const location = `${url.pathname}${url.search}${url.hash}`;
  const readBack = new URL(location, origin);
  return url.origin === new URL(origin).origin && readBack.href === url.href ? location : DEFAULT_NEXT;
}
