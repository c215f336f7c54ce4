import type { Context } from 'hono';
import type { HtmlEscapedString } from 'hono/utils/html';
import { isHtmx } from '../htmx.js';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * The part htmx swaps, or the whole page for a page load or a plain form post; `Vary` keeps a cache
 * from serving one for the other.
 */
export async function partOrPage(c: Context, part: () => Html | Promise<Html>, page: () => Html | Promise<Html>): Promise<HtmlEscapedString> {
  c.header('Vary', 'HX-Request');
  return isHtmx(c) ? part() : page();
}
