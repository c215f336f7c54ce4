import { readFileSync } from 'node:fs';
import type { Context } from 'hono';
import { sri384 } from '../core/integrity/inventory.js';
import type { WebEnv } from './security-headers.js';

/**
 * `/embed.js`, the script a merchant's page loads to mount the embedded checkout (docs/checkout-page.md,
 * "Embedded checkout"). Its address never changes, so it is kept briefly rather than for a year; a
 * merchant pins its content with Subresource Integrity, the sha384 below, which every answer states.
 * Its line in the payment-page inventory (core/integrity/payment-page-inventory.json) is `embed.js`.
 */
export const EMBED_SCRIPT_BODY = readFileSync(new URL('./assets/embed.js', import.meta.url));

/** The `integrity` attribute's value for the script as this process serves it. */
export const EMBED_SCRIPT_INTEGRITY = sri384(EMBED_SCRIPT_BODY);

export function serveEmbedScript(c: Context<WebEnv>) {
  return c.body(new Uint8Array(EMBED_SCRIPT_BODY), 200, {
    'Content-Type': 'text/javascript; charset=utf-8',
    'Cache-Control': 'public, max-age=300',
    // A merchant's page checks the integrity of a cross-origin script only through CORS (crossorigin="anonymous").
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'X-Content-Integrity': EMBED_SCRIPT_INTEGRITY,
  });
}
