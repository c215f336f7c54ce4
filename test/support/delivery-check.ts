import type { Db } from '../../core/db/client.js';
import type { WebhookReceiver } from './webhook-receiver.js';

/**
 * What the merchant's endpoint got of these carts' recorded events: each delivered (acknowledged at
 * least once), lost (recorded, never acknowledged), duplicated (acknowledged again: at-least-once, and
 * the receiver deduplicates by id) and out of order (a cart's events first acknowledged out of
 * sequence).
 */
export async function deliveryFigures(db: Db, receiver: WebhookReceiver, cartIds: readonly string[]) {
  const recorded = await db<{ id: string; cart_id: string; sequence: number }[]>`
    select id, cart_id, sequence from webhook_events where cart_id = any(${cartIds as string[]}) order by cart_id, sequence`;
  const ids = new Set(recorded.map((e) => e.id));
  const delivered = recorded.filter((e) => receiver.processed.has(e.id)).length;
  const acknowledged = receiver.requests.filter(
    (r) => ids.has(String(r.headers['webhook-id'])) && r.answered !== undefined && r.answered >= 200 && r.answered < 300,
  );
  const sequenceOf = new Map(recorded.map((e) => [e.id, { cartId: e.cart_id, sequence: e.sequence }]));
  const lastSequence = new Map<string, number>();
  let outOfOrder = 0;
  // `processed` keeps first acknowledgements in the order they happened.
  for (const id of receiver.processed.keys()) {
    const event = sequenceOf.get(id);
    if (!event) continue;
    if ((lastSequence.get(event.cartId) ?? 0) > event.sequence) outOfOrder++;
    lastSequence.set(event.cartId, event.sequence);
  }
  return {
    eventsRecorded: recorded.length,
    eventsDelivered: delivered,
    eventsLost: recorded.length - delivered,
    eventsDuplicated: acknowledged.length - delivered,
    eventsOutOfOrder: outOfOrder,
  };
}
