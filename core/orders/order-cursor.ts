/**
 * The opaque cursor of the merchant's order list: where the previous page stopped, as the position of
 * its last order in the list's order (creation time, newest first, then cartId). The time is kept in
 * microseconds, PostgreSQL's precision: a millisecond Date would skip or repeat orders created within
 * the same millisecond.
 */

export interface OrderCursor {
  /** Creation time of the last order of the page, in microseconds since the epoch, as decimal digits. */
  createdAtMicros: string;
  cartId: string;
}

const VERSION = 'o1';
const MICROS = /^\d{1,19}$/;
const CART_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function encodeOrderCursor(cursor: OrderCursor): string {
  return Buffer.from(`${VERSION}.${cursor.createdAtMicros}.${cursor.cartId}`, 'utf8').toString('base64url');
}

/** The position, or undefined for anything this API did not hand out (a cursor is never trusted as SQL). */
export function decodeOrderCursor(value: string): OrderCursor | undefined {
  if (value.length > 200 || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  const [version, createdAtMicros, cartId, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('.');
  if (version !== VERSION || rest.length > 0 || !createdAtMicros || !cartId) return undefined;
  if (!MICROS.test(createdAtMicros) || BigInt(createdAtMicros) > BigInt(Number.MAX_SAFE_INTEGER) * 1000n || !CART_ID.test(cartId)) return undefined;
  return { createdAtMicros, cartId };
}
