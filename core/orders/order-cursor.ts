import { listCursor } from '../list-cursor.js';

/** Where the previous page of the merchant's order list stopped (core/list-cursor.ts). */
export interface OrderCursor {
  createdAtMicros: string;
  cartId: string;
}

const cursor = listCursor('o1', /^[A-Za-z0-9_-]{1,64}$/);

export function encodeOrderCursor({ createdAtMicros, cartId }: OrderCursor): string {
  return cursor.encode({ createdAtMicros, id: cartId });
}

export function decodeOrderCursor(value: string): OrderCursor | undefined {
  const position = cursor.decode(value);
  return position && { createdAtMicros: position.createdAtMicros, cartId: position.id };
}
