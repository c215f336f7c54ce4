/**
 * The opaque cursor of the merchant's event list: where the previous page stopped, as the position of
 * its last event in the list's order (creation time, newest first, then id). The time is kept in
 * microseconds, PostgreSQL's precision (core/orders/order-cursor.ts does the same for orders).
 */

export interface EventCursor {
  createdAtMicros: string;
  eventId: string;
}

const VERSION = 'e1';
const MICROS = /^\d{1,19}$/;
const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;

export function encodeEventCursor(cursor: EventCursor): string {
  return Buffer.from(`${VERSION}.${cursor.createdAtMicros}.${cursor.eventId}`, 'utf8').toString('base64url');
}

/** The position, or undefined for anything this API did not hand out (a cursor is never trusted as SQL). */
export function decodeEventCursor(value: string): EventCursor | undefined {
  if (value.length > 200 || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  const [version, createdAtMicros, eventId, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('.');
  if (version !== VERSION || rest.length > 0 || !createdAtMicros || !eventId) return undefined;
  if (!MICROS.test(createdAtMicros) || BigInt(createdAtMicros) > BigInt(Number.MAX_SAFE_INTEGER) * 1000n || !EVENT_ID.test(eventId)) return undefined;
  return { createdAtMicros, eventId };
}
