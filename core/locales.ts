/**
 * The languages the hosted page speaks: what the page offers, and what the API reference lists. Each has its
 * catalogue in web/i18n/messages/<locale>.json, which web/i18n/index.ts checks at load against this list (a
 * catalogue without its entry here, or an entry without its catalogue, stops the page process). Here, below
 * api/ and web/, so that both read it and neither imports the other. English is the reference catalogue and
 * the fallback for anything missing.
 */
export const DEFAULT_LOCALE = 'en';

/** Every locale the page speaks. */
export const LOCALES: readonly string[] = ['ar', 'de', 'en', 'es', 'fr'];
