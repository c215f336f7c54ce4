import type { Keyring } from '../crypto.js';
import type postgres from 'postgres';
import type { Db, Sql } from '../db/client.js';
import { resealedCustomer } from '../checkout/customer-seal.js';
import { sealEventBody, type StoredEventBody } from './event-body-seal.js';
import type { CartStatus } from '../checkout/session.js';
import type { DeliveryStatus, WebhookEventBody, WebhookEventName } from './events.js';

/**
 * The write path of the `webhook_events`, `webhook_deliveries` and `webhook_attempts` tables: the events
 * each cart produced, in order, with their fixed bodies; where each stands at each endpoint that wanted
 * it; and every HTTP attempt made to deliver them. What operators, the dashboard and the APIs read of
 * them is ./event-history.ts.
 */

/** The error class of an attempt that started and never reported back (its worker stopped). */
export const NO_OUTCOME = 'no_outcome';

/**
 * The cart's event of this kind and status, if recorded: each happens once per cart, except
 * `order_refunded`, which happens once per refund and is told apart by `refundId`, and the events with a
 * `subject` (a dispute's steps, a failed refund), told apart by it.
 */
export async function findCartEvent(
  sql: Sql,
  cartId: string,
  event: WebhookEventName,
  status: string,
  refundId?: string,
  subject?: string,
): Promise<{ id: string; sequence: number } | undefined> {
  const [row] = await sql<{ id: string; sequence: number }[]>`
    select id, sequence from webhook_events
    where cart_id = ${cartId} and event = ${event} and payload->'data'->>'status' = ${status}
      ${refundId === undefined ? sql`` : sql`and payload->'data'->'refund'->>'id' = ${refundId}`}
      and subject is not distinct from ${subject ?? null}`;
  return row;
}

/** The cart's event of this name about this refund, whatever status it said (a refund has at most one of each name). */
export async function findRefundEvent(
  sql: Sql,
  cartId: string,
  event: WebhookEventName,
  refundId: string,
): Promise<{ id: string; sequence: number; status: CartStatus } | undefined> {
  const [row] = await sql<{ id: string; sequence: number; status: CartStatus }[]>`
    select id, sequence, payload->'data'->>'status' as status from webhook_events
    where cart_id = ${cartId} and event = ${event} and payload->'data'->'refund'->>'id' = ${refundId}`;
  return row;
}

export async function nextEventSequence(sql: Sql, cartId: string): Promise<number> {
  const [row] = await sql<{ next: number }[]>`select coalesce(max(sequence), 0) + 1 as next from webhook_events where cart_id = ${cartId}`;
  return row?.next ?? 1;
}

/**
 * The event, its body kept with the customer's contact sealed (./event-body-seal.ts), and its
 * deliveries, one per endpoint `subscribed` selects, in one statement; with none, the event is
 * `unsubscribed`, recorded and never sent.
 */
export async function insertEventWithDeliveries(
  sql: Sql,
  keyring: Keyring,
  recorded: { platformUuid: string; body: WebhookEventBody; subject?: string; subscribed: postgres.Fragment },
): Promise<void> {
  const { body } = recorded;
  await sql`
    with endpoints as (${recorded.subscribed}),
    event as (
      insert into webhook_events (id, cart_id, platform_uuid, sequence, event, payload, subject, delivery_status)
      select ${body.id}, ${body.data.cartId}, ${recorded.platformUuid}, ${body.sequence}, ${body.event}, ${sql.json(sealEventBody(keyring, body))},
        ${recorded.subject ?? null}, case when exists (select 1 from endpoints) then 'pending' else 'unsubscribed' end
      returning id)
    insert into webhook_deliveries (event_id, endpoint_id) select event.id, endpoints.id from event cross join endpoints`;
}

/**
 * Re-seals with the newest key every event body's contact it did not seal (`npm run reseal`, the
 * body's seal is ./event-body-seal.ts); returns how many.
 */
export async function resealEventCustomers(db: Db, keyring: Keyring): Promise<number> {
  const rows = await db<{ id: string; sealed: string }[]>`
    select id, payload->'data'->'customer'->>'sealed' as sealed from webhook_events where payload->'data'->'customer' ? 'sealed'`;
  let resealed = 0;
  for (const row of rows) {
    const fresh = resealedCustomer(keyring, Buffer.from(row.sealed, 'base64'));
    if (!fresh) continue;
    const updated = await db`
      update webhook_events set payload = jsonb_set(payload, '{data,customer,sealed}', to_jsonb(${fresh.toString('base64')}::text))
      where id = ${row.id} and payload->'data'->'customer'->>'sealed' = ${row.sealed}`;
    resealed += updated.count;
  }
  return resealed;
}

export interface StoredEvent {
  id: string;
  cart_id: string;
  platform_uuid: string;
  event: WebhookEventName;
  /** Open it (./event-body-seal.ts openEventBody) before it goes anywhere. */
  payload: StoredEventBody;
  delivery_status: DeliveryStatus;
}

export async function findEvent(db: Db, eventId: string): Promise<StoredEvent | undefined> {
  const [row] = await db<StoredEvent[]>`
    select id, cart_id, platform_uuid, event, payload, delivery_status from webhook_events where id = ${eventId}`;
  return row;
}

/** Where a recorded event stands at one endpoint it was recorded for, as its sending needs it (activities/shared/cart-events.ts). */
export interface EventDelivery {
  endpointId: string;
  status: Exclude<DeliveryStatus, 'unsubscribed'>;
  /** The cart's earlier events still pending at this endpoint, in sequence order: this one must wait behind them. */
  waitingBehind: string[];
  /** Attempts already made at this endpoint, and when the last one said to try next. */
  attempts: number;
  nextAttemptAt: Date | null;
}

/** The event's deliveries, in the order their endpoints were subscribed, each with what stands before it: one round trip for all. */
export async function eventDeliveries(sql: Sql, event: { eventId: string; cartId: string; sequence: number }): Promise<EventDelivery[]> {
  const rows = await sql<{ endpoint_id: string; status: EventDelivery['status']; waiting_behind: string[]; attempts: number; next_attempt_at: Date | null }[]>`
    select d.endpoint_id, d.status,
      array(
        select ev.id from webhook_events ev join webhook_deliveries p on p.event_id = ev.id and p.endpoint_id = d.endpoint_id
        where ev.cart_id = ${event.cartId} and ev.sequence < ${event.sequence} and p.status = 'pending'
        order by ev.sequence) as waiting_behind,
      a.attempts, a.next_attempt_at
    from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
    cross join lateral (
      select count(*)::int as attempts, (array_agg(next_attempt_at order by id desc))[1] as next_attempt_at
      from webhook_attempts where event_id = d.event_id and endpoint_id = d.endpoint_id) a
    where d.event_id = ${event.eventId}
    order by e.created_at, e.id`;
  return rows.map((r) => ({
    endpointId: r.endpoint_id,
    status: r.status,
    waitingBehind: r.waiting_behind,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
  }));
}

/** The endpoints the event was recorded for, in the order they were subscribed. */
export async function deliveryEndpointIds(sql: Sql, eventId: string): Promise<string[]> {
  const rows = await sql<{ endpoint_id: string }[]>`
    select d.endpoint_id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
    where d.event_id = ${eventId} order by e.created_at, e.id`;
  return rows.map((r) => r.endpoint_id);
}

/**
 * Where the event stands at the endpoint, its delivery made `pending` when it had none (`made`): an
 * event recorded before the endpoint existed and replayed to it, or by a worker of the version before
 * several endpoints.
 */
export async function ensureDelivery(db: Db, eventId: string, endpointId: string): Promise<{ status: DeliveryStatus; made: boolean }> {
  // One round trip: the insert's row when it made one, the existing row otherwise (the statement's snapshot does not see its own insert).
  const [row] = await db<{ status: DeliveryStatus; made: boolean }[]>`
    with made as (insert into webhook_deliveries (event_id, endpoint_id) values (${eventId}, ${endpointId}) on conflict do nothing returning status)
    select status, true as made from made
    union all
    select status, false as made from webhook_deliveries where event_id = ${eventId} and endpoint_id = ${endpointId}
    limit 1`;
  return row!;
}

/**
 * The cart's earliest event before `sequence` still pending at the endpoint: a replay sent now would
 * overtake it, so the replay waits behind it in the cart's delivery workflow (core/webhooks/replay.ts).
 */
export async function earliestPendingBefore(db: Db, event: { cartId: string; sequence: number }, endpointId: string): Promise<string | undefined> {
  const [row] = await db<{ id: string }[]>`
    select ev.id from webhook_events ev join webhook_deliveries d on d.event_id = ev.id and d.endpoint_id = ${endpointId}
    where ev.cart_id = ${event.cartId} and ev.sequence < ${event.sequence} and d.status = 'pending'
    order by ev.sequence limit 1`;
  return row?.id;
}

/**
 * Notes that a replay of the event to the endpoint waits in the cart's delivery workflow; false when one
 * already did (the new one adds nothing). The delivery activity forgets it as it sends the replay
 * (forgetQueuedReplay), so a replay asked after that is a new one.
 */
export async function noteQueuedReplay(db: Db, eventId: string, endpointId: string): Promise<boolean> {
  const made = await db`
    insert into webhook_replays_queued (event_id, endpoint_id) values (${eventId}, ${endpointId}) on conflict do nothing returning 1`;
  return made.length > 0;
}

export async function forgetQueuedReplay(db: Db, eventId: string, endpointId: string): Promise<void> {
  await db`delete from webhook_replays_queued where event_id = ${eventId} and endpoint_id = ${endpointId}`;
}

/**
 * A replay that fails does not undo an earlier success. The event's own status sums up its deliveries:
 * pending while any is; delivered once all are; failed when any failed; skipped otherwise.
 */
export async function setDeliveryStatus(
  db: Db,
  eventId: string,
  endpointId: string,
  status: Exclude<DeliveryStatus, 'pending' | 'unsubscribed'>,
): Promise<void> {
  await (status === 'delivered'
    ? db`update webhook_deliveries set status = 'delivered', delivered_at = now() where event_id = ${eventId} and endpoint_id = ${endpointId}`
    : db`update webhook_deliveries set status = ${status} where event_id = ${eventId} and endpoint_id = ${endpointId} and status <> 'delivered'`);
  await summarizeDeliveries(db, eventId);
}

/** Sums up the event's deliveries in its own status (setDeliveryStatus). */
async function summarizeDeliveries(db: Db, eventId: string): Promise<void> {
  await db`
    update webhook_events ev set delivery_status = s.status, delivered_at = case when s.status = 'delivered' then s.delivered_at end
    from (
      select case
          when bool_or(status = 'pending') then 'pending'
          when bool_and(status = 'delivered') then 'delivered'
          when bool_or(status = 'failed') then 'failed'
          else 'skipped'
        end as status, max(delivered_at) as delivered_at
      from webhook_deliveries where event_id = ${eventId}
    ) s
    where ev.id = ${eventId}`;
}

/** Failed or skipped events of an endpoint since a time, cart by cart in order: what a recovery sends again. */
export function undeliveredEventsSince(db: Db, endpointId: string, since: Date): Promise<Array<{ id: string; cart_id: string }>> {
  return db<{ id: string; cart_id: string }[]>`
    select ev.id, ev.cart_id from webhook_events ev join webhook_deliveries d on d.event_id = ev.id
    where d.endpoint_id = ${endpointId} and ev.created_at >= ${since} and d.status in ('failed', 'skipped')
    order by ev.cart_id, ev.sequence`;
}

/**
 * Written before the request goes out, so an attempt whose worker dies mid-flight still shows, as
 * NO_OUTCOME; completed with its outcome afterwards.
 */
export async function startAttempt(
  db: Db,
  attempt: { eventId: string; endpointId: string; attempt: number; trigger: string; attemptedAt: Date; url: string },
): Promise<string> {
  const [row] = await db<{ id: string }[]>`
    insert into webhook_attempts (event_id, endpoint_id, attempt, trigger, attempted_at, url, error_class, latency_ms)
    values (${attempt.eventId}, ${attempt.endpointId}, ${attempt.attempt}, ${attempt.trigger}, ${attempt.attemptedAt}, ${attempt.url}, ${NO_OUTCOME}, 0)
    returning id`;
  return row!.id;
}

export async function completeAttempt(
  db: Db,
  attemptId: string,
  outcome: { httpStatus: number | null; errorClass: string | null; latencyMs: number; responseExcerpt: string | null; nextAttemptAt: Date | null },
): Promise<void> {
  await db`
    update webhook_attempts set http_status = ${outcome.httpStatus}, error_class = ${outcome.errorClass}, latency_ms = ${outcome.latencyMs},
      response_excerpt = ${outcome.responseExcerpt}, next_attempt_at = ${outcome.nextAttemptAt}
    where id = ${attemptId}`;
}

/**
 * A 2xx, recorded in two round trips where it took three: the attempt's outcome and the delivery
 * marked delivered in one statement, then the event's own status.
 */
export async function recordDeliveredAttempt(
  db: Db,
  delivery: { attemptId: string; eventId: string; endpointId: string },
  outcome: { httpStatus: number; latencyMs: number; responseExcerpt: string | null },
): Promise<void> {
  await db`
    with attempt as (
      update webhook_attempts set http_status = ${outcome.httpStatus}, error_class = null, latency_ms = ${outcome.latencyMs},
        response_excerpt = ${outcome.responseExcerpt}, next_attempt_at = null
      where id = ${delivery.attemptId}
    )
    update webhook_deliveries set status = 'delivered', delivered_at = now() where event_id = ${delivery.eventId} and endpoint_id = ${delivery.endpointId}`;
  await summarizeDeliveries(db, delivery.eventId);
}

/** True once an attempt to deliver the cart's `event` has an outcome, whatever it was. */
export async function hasCompletedAttempt(db: Db, cartId: string, event: WebhookEventName): Promise<boolean> {
  const rows = await db`
    select 1 from webhook_attempts a join webhook_events e on e.id = a.event_id
    where e.cart_id = ${cartId} and e.event = ${event} and a.error_class is distinct from ${NO_OUTCOME} limit 1`;
  return rows.length > 0;
}
