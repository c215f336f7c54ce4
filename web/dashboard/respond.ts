import type { Context } from 'hono';

/**
 * htmx (and not a history restore) asks for the part it swaps; a plain form post or a page load gets
 * the whole page. `Vary` keeps a cache from serving one for the other.
 */
export function isHtmx(c: Context): boolean {
  return c.req.header('HX-Request') === 'true' && c.req.header('HX-History-Restore-Request') !== 'true';
}

export function partOrPage<T>(c: Context, part: () => T, page: () => T): T {
  c.header('Vary', 'HX-Request');
  return isHtmx(c) ? part() : page();
}
