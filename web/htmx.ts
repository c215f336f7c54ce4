import type { Context } from 'hono';

/** htmx asking for the part it swaps (a history restore wants the whole page). */
export function isHtmx(c: Context): boolean {
  return c.req.header('HX-Request') === 'true' && c.req.header('HX-History-Restore-Request') !== 'true';
}
