import type { Keyring } from '../crypto.js';
import type { Db } from '../db/client.js';
import { openEventBody, type StoredEventBody } from './event-body-seal.js';
import type { FeedPosition } from './event-feed-schema.js';
import type { WebhookEventName } from './events.js';

/**
 * A merchant's events as they are recorded, oldest first, for the event stream (api/merchant/event-stream-routes.ts):
 * the rows of `webhook_events` that the event list reads, followed by position.
 *
 * An event's `created_at` is the start of the transaction that recorded it (core/webhooks/cart-events.ts
 * inserts it with the column's default, now()), and that transaction can commit after a later one: a
 * reader that simply took "everything after the last event I sent" would skip an event committed late
 * behind its cursor, for good. So a read goes only up to the horizon: the start of the oldest
 * transaction still open in this database. Everything recorded before it has committed (or never
 * will), so the feed misses nothing and never needs to look back. The horizon trails now by the
 * length of the longest open transaction, a few milliseconds as events are recorded. It reads
 * pg_stat_activity, which shows the start of other sessions' transactions to the same role (or one
 * with pg_read_all_stats), as every process of a deployment connects.
 */

/** One event as the stream sends it. */
export interface FeedEvent {
  position: FeedPosition;
  event: WebhookEventName;
  cartId: string;
  /** Exactly the bytes a delivery sends (activities/webhook-delivery/index.ts serializes the stored payload the same way). */
  rawBody: string;
}

/** Before this position, every event has committed or never will: the start of the oldest open transaction, or now. */
export async function feedHorizon(db: Db): Promise<FeedPosition> {
  const [row] = await db<{ micros: string }[]>`
    select (extract(epoch from least(now(), min(xact_start))) * 1000000)::bigint::text as micros
    from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`;
  return { createdAtMicros: row!.micros, eventId: '' };
}

/**
 * The merchant's events after `after` and before `horizon` (feedHorizon, read before this), oldest
 * first, of the given names only when given, at most `limit`.
 */
export async function readFeed(
  db: Db,
  keyring: Keyring,
  platformUuid: string,
  range: { after: FeedPosition; horizon: FeedPosition; types?: readonly WebhookEventName[]; limit: number },
): Promise<FeedEvent[]> {
  const { after, horizon, types, limit } = range;
  const rows = await db<{ id: string; event: WebhookEventName; cart_id: string; payload: StoredEventBody; created_at_micros: string }[]>`
    select ev.id, ev.event, ev.cart_id, ev.payload, (extract(epoch from ev.created_at) * 1000000)::bigint::text as created_at_micros
    from webhook_events ev
    where ev.platform_uuid = ${platformUuid}
      and (ev.created_at, ev.id) > (timestamptz 'epoch' + ${after.createdAtMicros}::bigint * interval '1 microsecond', ${after.eventId})
      and ev.created_at < timestamptz 'epoch' + ${horizon.createdAtMicros}::bigint * interval '1 microsecond'
      ${types ? db`and ev.event in ${db(types)}` : db``}
    order by ev.created_at, ev.id
    limit ${limit}`;
  return rows.map((r) => ({
    position: { createdAtMicros: r.created_at_micros, eventId: r.id },
    event: r.event,
    cartId: r.cart_id,
    rawBody: JSON.stringify(openEventBody(keyring, r.payload)),
  }));
}
