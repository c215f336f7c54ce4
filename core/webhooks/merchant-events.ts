import type { Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';
import { decodeEventCursor, encodeEventCursor } from './event-cursor.js';
import type { EventList, EventListQuery } from './event-schema.js';
import { EVENT_LIMITS } from './event-schema.js';
import { listMerchantEvents } from './event-history.js';

/** A merchant's events, filtered and paged: `GET /v2/merchant/events`. */
export async function listEvents(db: Db, keyring: Keyring, platformUuid: string, query: EventListQuery): Promise<EventList> {
  const limit = query.limit ?? EVENT_LIMITS.defaultPageSize;
  const after = query.cursor === undefined ? undefined : decodeEventCursor(query.cursor);
  // One more than the page: whether a next page exists, without a count.
  const rows = await listMerchantEvents(db, keyring, platformUuid, {
    ...(query.type ? { type: query.type } : {}),
    ...(query.cartId ? { cartId: query.cartId } : {}),
    ...(query.createdFrom ? { createdFrom: new Date(query.createdFrom) } : {}),
    ...(query.createdTo ? { createdTo: new Date(query.createdTo) } : {}),
    ...(query.endpointId && query.delivered !== undefined ? { endpoint: { id: query.endpointId, delivered: query.delivered } } : {}),
    ...(after ? { after } : {}),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(({ createdAtMicros: _micros, body, ...event }) => ({ ...event, body })),
    nextCursor: rows.length > limit && last ? encodeEventCursor({ createdAtMicros: last.createdAtMicros, eventId: last.id }) : null,
  };
}
