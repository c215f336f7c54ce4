import type { Keyring } from '../crypto.js';
import type { Db, Sql } from '../db/client.js';
import { openEventBody, type StoredEventBody } from './event-body-seal.js';
import { isDeliveryError, LEGACY_DELIVERY_ERRORS, type DeliveryError } from '../outbound/delivery-errors.js';
import type { DeliveryStatus, WebhookEventBody, WebhookEventName } from './events.js';
import { NO_OUTCOME } from './event-store.js';

/**
 * What operators, the dashboard and the APIs read of the webhook tables (written by ./event-store.ts):
 * each event with its attempts, an order's timeline, the merchant's event list and every endpoint's
 * health.
 */

/**
 * A stored attempt's error as a merchant is told it: its category (core/outbound/delivery-errors.ts),
 * also for rows written before categories (`http_<status>` for an answer) and before `unreachable_host`
 * (LEGACY_DELIVERY_ERRORS); null for a 2xx and for an
 * attempt without an outcome (NO_OUTCOME).
 */
export function deliveryErrorOf(errorClass: string | null, httpStatus: number | null): DeliveryError | null {
  if (httpStatus !== null) return httpStatus >= 200 && httpStatus <= 299 ? null : 'http_status';
  if (errorClass === null || errorClass === NO_OUTCOME) return null;
  return isDeliveryError(errorClass) ? errorClass : (LEGACY_DELIVERY_ERRORS[errorClass] ?? 'network');
}

/** What operators (and a merchant's support request) see of an event and its attempts. */
export interface EventDeliveries {
  eventId: string;
  cartId: string;
  event: string;
  sequence: number;
  status: DeliveryStatus;
  createdAt: string;
  deliveredAt: string | null;
  attempts: Array<{
    attempt: number;
    trigger: string;
    attemptedAt: string;
    url: string;
    httpStatus: number | null;
    errorClass: string | null;
    latencyMs: number;
    responseExcerpt: string | null;
    nextAttemptAt: string | null;
  }>;
}

interface Row {
  id: string;
  cart_id: string;
  event: string;
  sequence: number;
  delivery_status: EventDeliveries['status'];
  created_at: Date;
  delivered_at: Date | null;
  attempts: Array<{
    attempt: number;
    trigger: string;
    attempted_at: string;
    url: string;
    http_status: number | null;
    error_class: string | null;
    latency_ms: number;
    response_excerpt: string | null;
    next_attempt_at: string | null;
  }>;
}

const iso = (value: string | null) => (value === null ? null : new Date(value).toISOString());

function toDeliveries(r: Row): EventDeliveries {
  return {
    eventId: r.id,
    cartId: r.cart_id,
    event: r.event,
    sequence: r.sequence,
    status: r.delivery_status,
    createdAt: r.created_at.toISOString(),
    deliveredAt: r.delivered_at?.toISOString() ?? null,
    attempts: r.attempts.map((a) => ({
      attempt: a.attempt,
      trigger: a.trigger,
      attemptedAt: iso(a.attempted_at)!,
      url: a.url,
      httpStatus: a.http_status,
      errorClass: a.error_class,
      latencyMs: a.latency_ms,
      responseExcerpt: a.response_excerpt,
      nextAttemptAt: iso(a.next_attempt_at),
    })),
  };
}

function eventsWithAttempts(db: Db, where: ReturnType<Db>, limit: number) {
  return db<Row[]>`
    select ev.id, ev.cart_id, ev.event, ev.sequence, ev.delivery_status, ev.created_at, ev.delivered_at,
      coalesce((select json_agg(json_build_object(
          'attempt', a.attempt, 'trigger', a.trigger, 'attempted_at', a.attempted_at, 'url', a.url, 'http_status', a.http_status,
          'error_class', a.error_class, 'latency_ms', a.latency_ms, 'response_excerpt', a.response_excerpt, 'next_attempt_at', a.next_attempt_at)
        order by a.id) from webhook_attempts a where a.event_id = ev.id), '[]') as attempts
    from webhook_events ev
    ${where}
    order by ev.created_at desc, ev.sequence desc
    limit ${limit}`;
}

export async function listCartDeliveries(db: Db, cartId: string): Promise<EventDeliveries[]> {
  const rows = await eventsWithAttempts(db, db`where ev.cart_id = ${cartId}`, 1000);
  return rows.map(toDeliveries).sort((a, b) => a.sequence - b.sequence);
}

export async function listMerchantDeliveries(
  db: Db,
  platformUuid: string,
  filter: { since?: Date; status?: DeliveryStatus; limit?: number } = {},
): Promise<EventDeliveries[]> {
  const rows = await eventsWithAttempts(
    db,
    db`where ev.platform_uuid = ${platformUuid}
       ${filter.since ? db`and ev.created_at >= ${filter.since}` : db``}
       ${filter.status ? db`and ev.delivery_status = ${filter.status}` : db``}`,
    Math.min(filter.limit ?? 100, 1000),
  );
  return rows.map(toDeliveries);
}

/**
 * What a merchant sees of one of its order's events: the attempts, each answer cut to `excerptChars`,
 * each failure as its category only.
 */
export interface OrderEventDeliveries {
  eventId: string;
  event: WebhookEventName;
  sequence: number;
  status: DeliveryStatus;
  createdAt: string;
  attempts: Array<{
    endpointId: string;
    attemptedAt: string;
    responseStatus: number | null;
    responseExcerpt: string | null;
    error: DeliveryError | null;
    durationMs: number | null;
  }>;
}

/** The cart's events in sequence order with their attempts, oldest first. */
export async function listOrderEventDeliveries(db: Sql, cartId: string, excerptChars: number): Promise<OrderEventDeliveries[]> {
  const rows = await db<
    Array<{
      id: string;
      event: WebhookEventName;
      sequence: number;
      delivery_status: DeliveryStatus;
      created_at: Date;
      attempts: Array<{
        endpoint_id: string;
        attempted_at: string;
        http_status: number | null;
        response_excerpt: string | null;
        error_class: string | null;
        latency_ms: number | null;
      }>;
    }>
  >`
    select ev.id, ev.event, ev.sequence, ev.delivery_status, ev.created_at,
      coalesce((select json_agg(json_build_object(
          'endpoint_id', a.endpoint_id, 'attempted_at', a.attempted_at, 'http_status', a.http_status, 'response_excerpt', left(a.response_excerpt, ${excerptChars}),
          'error_class', a.error_class, 'latency_ms', a.latency_ms)
        order by a.id) from webhook_attempts a where a.event_id = ev.id), '[]') as attempts
    from webhook_events ev
    where ev.cart_id = ${cartId}
    order by ev.sequence`;
  return rows.map((r) => ({
    eventId: r.id,
    event: r.event,
    sequence: r.sequence,
    status: r.delivery_status,
    createdAt: r.created_at.toISOString(),
    attempts: r.attempts.map((a) => {
      // An attempt still in flight has no outcome yet: neither an error nor a duration to show.
      const inFlight = a.error_class === NO_OUTCOME && a.http_status === null;
      return {
        endpointId: a.endpoint_id,
        attemptedAt: new Date(a.attempted_at).toISOString(),
        responseStatus: a.http_status,
        // Only an answer has an excerpt: rows from before categories kept Node's error message here.
        responseExcerpt: a.http_status === null ? null : a.response_excerpt,
        error: deliveryErrorOf(a.error_class, a.http_status),
        durationMs: inFlight ? null : a.latency_ms,
      };
    }),
  }));
}

/** How one endpoint answered the attempts of a period. */
export interface EndpointHealth {
  /** What the attempts are grouped by: the endpoint they were made to (webhook_attempts.endpoint_id). */
  endpointKey: string;
  /** The merchant whose events they delivered. */
  platformUuid: string;
  /** The URL of the endpoint's latest attempt. */
  url: string;
  attempts: number;
  succeeded: number;
  p50LatencyMs: number;
  p99LatencyMs: number;
  lastFailureAt: string | null;
}

/**
 * Every endpoint's completed attempts since `since` (one merchant's, or every merchant's), failing
 * endpoints first: the lowest success rate, then the latest failure. The one query that says what an
 * endpoint is: it groups by the attempt's endpoint_id, so a merchant's several endpoints each get a
 * row, and re-keying (by URL, say) changes only `key` here. An attempt still in flight, or whose
 * worker stopped before it reported (NO_OUTCOME), has no outcome to count.
 */
export async function endpointDeliveryHealth(db: Db, scope: { platformUuid?: string; since: Date }): Promise<EndpointHealth[]> {
  const key = db`a.endpoint_id::text`;
  const rows = await db<
    {
      endpoint_key: string;
      platform_uuid: string;
      url: string;
      attempts: string;
      succeeded: string;
      p50: number;
      p99: number;
      last_failure_at: Date | null;
    }[]
  >`
    select ${key} as endpoint_key, e.platform_uuid::text as platform_uuid,
      (array_agg(a.url order by a.attempted_at desc, a.id desc))[1] as url,
      count(*) as attempts,
      count(*) filter (where a.http_status between 200 and 299) as succeeded,
      percentile_disc(0.5) within group (order by a.latency_ms) as p50,
      percentile_disc(0.99) within group (order by a.latency_ms) as p99,
      max(a.attempted_at) filter (where a.http_status is null or a.http_status not between 200 and 299) as last_failure_at
    from webhook_attempts a join webhook_events e on e.id = a.event_id
    where a.attempted_at >= ${scope.since} and a.error_class is distinct from ${NO_OUTCOME}
      ${scope.platformUuid ? db`and e.platform_uuid = ${scope.platformUuid}` : db``}
    group by 1, 2
    order by count(*) filter (where a.http_status between 200 and 299)::float / count(*), last_failure_at desc nulls last, 1`;
  return rows.map((r) => ({
    endpointKey: r.endpoint_key,
    platformUuid: r.platform_uuid,
    url: r.url,
    attempts: Number(r.attempts),
    succeeded: Number(r.succeeded),
    p50LatencyMs: Number(r.p50),
    p99LatencyMs: Number(r.p99),
    lastFailureAt: r.last_failure_at?.toISOString() ?? null,
  }));
}

/** What a merchant's event list shows of one event: its body and where it stands at each endpoint. */
export interface ListedEvent {
  id: string;
  type: WebhookEventName;
  cartId: string;
  sequence: number;
  createdAt: string;
  createdAtMicros: string;
  body: WebhookEventBody;
  deliveries: Array<{ endpointId: string; status: Exclude<DeliveryStatus, 'unsubscribed'>; deliveredAt: string | null }>;
}

export interface EventFilter {
  type?: WebhookEventName;
  cartId?: string;
  createdFrom?: Date;
  createdTo?: Date;
  /** The endpoint's deliveries: `delivered: false`, what it wanted and has not received. */
  endpoint?: { id: string; delivered: boolean };
  /** The position after which the page starts, newest first. */
  after?: { createdAtMicros: string; eventId: string };
  limit: number;
}

/** The merchant's events matching every filter, newest first (then by id), at most `limit`. */
export async function listMerchantEvents(db: Db, keyring: Keyring, platformUuid: string, filter: EventFilter): Promise<ListedEvent[]> {
  const rows = await db<
    Array<{
      id: string;
      event: WebhookEventName;
      cart_id: string;
      sequence: number;
      created_at: Date;
      created_at_micros: string;
      payload: StoredEventBody;
      deliveries: Array<{ endpoint_id: string; status: Exclude<DeliveryStatus, 'unsubscribed'>; delivered_at: string | null }>;
    }>
  >`
    select ev.id, ev.event, ev.cart_id, ev.sequence, ev.created_at, ev.payload,
      (extract(epoch from ev.created_at) * 1000000)::bigint::text as created_at_micros,
      coalesce((select json_agg(json_build_object('endpoint_id', d.endpoint_id, 'status', d.status, 'delivered_at', d.delivered_at)
        order by e.created_at, e.id) from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where d.event_id = ev.id), '[]') as deliveries
    from webhook_events ev
    where ev.platform_uuid = ${platformUuid}
      ${filter.type ? db`and ev.event = ${filter.type}` : db``}
      ${filter.cartId ? db`and ev.cart_id = ${filter.cartId}` : db``}
      ${filter.createdFrom ? db`and ev.created_at >= ${filter.createdFrom}` : db``}
      ${filter.createdTo ? db`and ev.created_at < ${filter.createdTo}` : db``}
      ${
        filter.endpoint
          ? db`and exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.endpoint_id = ${filter.endpoint.id}
              and ${filter.endpoint.delivered ? db`d.status = 'delivered'` : db`d.status <> 'delivered'`})`
          : db``
      }
      ${
        filter.after
          ? db`and (ev.created_at, ev.id) < (timestamptz 'epoch' + ${filter.after.createdAtMicros}::bigint * interval '1 microsecond', ${filter.after.eventId})`
          : db``
      }
    order by ev.created_at desc, ev.id desc
    limit ${filter.limit}`;
  return rows.map((r) => ({
    id: r.id,
    type: r.event,
    cartId: r.cart_id,
    sequence: r.sequence,
    createdAt: r.created_at.toISOString(),
    createdAtMicros: r.created_at_micros,
    body: openEventBody(keyring, r.payload),
    deliveries: r.deliveries.map((d) => ({
      endpointId: d.endpoint_id,
      status: d.status,
      deliveredAt: d.delivered_at === null ? null : new Date(d.delivered_at).toISOString(),
    })),
  }));
}
