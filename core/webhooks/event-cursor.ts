import { listCursor } from '../list-cursor.js';

/** Where the previous page of the merchant's event list stopped (core/list-cursor.ts). */
export interface EventCursor {
  createdAtMicros: string;
  eventId: string;
}

const cursor = listCursor('e1', /^evt_[A-Za-z0-9_-]{1,64}$/);

export function encodeEventCursor({ createdAtMicros, eventId }: EventCursor): string {
  return cursor.encode({ createdAtMicros, id: eventId });
}

export function decodeEventCursor(value: string): EventCursor | undefined {
  const position = cursor.decode(value);
  return position && { createdAtMicros: position.createdAtMicros, eventId: position.id };
}
