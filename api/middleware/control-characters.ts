import { createMiddleware } from 'hono/factory';
import { ApiError } from '../../application/errors.js';
import { plainText } from '../../core/checkout/cart-schema.js';

/** No id, cartId, filter or query value of this API holds a control character, and PostgreSQL takes no U+0000 in text. */
const hasControlCharacter = (value: string) => !plainText(value);

const decoded = (part: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

/**
 * Refuses, before any route, a URL whose path or query carries a control character once decoded
 * (`%00`, `%0A`…), with VALIDATION_ERROR naming the query parameter, or `path`. Without it such a
 * value reached PostgreSQL, which refuses U+0000 in text, and the caller got a 500.
 */
export function refuseControlCharacters() {
  return createMiddleware(async (c, next) => {
    // Node's HTTP parser refuses a raw control character in the request target, so one arrives
    // percent-encoded or not at all: most requests (create-cart's among them) parse no URL here.
    if (!c.req.url.includes('%')) return next();
    const url = new URL(c.req.url);
    const errors = [
      ...(hasControlCharacter(decoded(url.pathname)) ? [{ path: 'path', message: 'must not contain control characters (%00 to %1F, %7F)' }] : []),
      ...[...url.searchParams]
        .filter(([name, value]) => hasControlCharacter(name) || hasControlCharacter(value))
        .map(([name]) => ({ path: hasControlCharacter(name) ? 'query' : name, message: 'must not contain control characters (%00 to %1F, %7F)' })),
    ];
    if (errors.length) throw new ApiError('VALIDATION_ERROR', `The request has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors);
    await next();
  });
}
