-- The browser that verified the session's code (web/checkout/browser-binding.ts): the SHA-256 of the
-- random value in its HttpOnly cookie, never the value. Every step after verification requires it;
-- null until a browser verifies. A new verification (another browser, with a fresh code) replaces it.
alter table carts add column browser_binding text check (browser_binding ~ '^[0-9a-f]{64}$');
