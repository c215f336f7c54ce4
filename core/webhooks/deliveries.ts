import type { Client } from '@temporalio/client';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { MerchantNotFoundError } from '../merchants.js';
import { requestDelivery } from './start-delivery.js';

/** What operators (and a merchant's support request) see of an event and its attempts. */
export interface EventDeliveries {
  eventId: string;
  cartId: string;
  event: string;
  sequence: number;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
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

export class WebhookEventNotFoundError extends Error {
  override name = 'WebhookEventNotFoundError';
  constructor(readonly eventId: string) {
    super(`no webhook event has id ${eventId}`);
  }
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

export async function listEndpointDeliveries(
  db: Db,
  platformUuid: string,
  filter: { since?: Date; status?: EventDeliveries['status']; limit?: number } = {},
): Promise<EventDeliveries[]> {
  const [merchant] = await db`select 1 from merchants where platform_uuid = ${platformUuid}`;
  if (!merchant) throw new MerchantNotFoundError(platformUuid);
  const rows = await eventsWithAttempts(
    db,
    db`where ev.platform_uuid = ${platformUuid}
       ${filter.since ? db`and ev.created_at >= ${filter.since}` : db``}
       ${filter.status ? db`and ev.delivery_status = ${filter.status}` : db``}`,
    Math.min(filter.limit ?? 100, 1000),
  );
  return rows.map(toDeliveries);
}

type Deps = { db: Db; client: Client; config: Pick<Config, 'temporal' | 'webhooks'> };

/** Sends one event again: same event id and body, fresh timestamp and signature. */
export async function replayEvent(deps: Deps, eventId: string): Promise<{ eventId: string; cartId: string }> {
  const [event] = await deps.db<{ cart_id: string }[]>`select cart_id from webhook_events where id = ${eventId}`;
  if (!event) throw new WebhookEventNotFoundError(eventId);
  await requestDelivery(deps.client, deps.config, event.cart_id, { eventId, trigger: 'replay' });
  return { eventId, cartId: event.cart_id };
}

/**
 * After an outage on the merchant's side: re-enables the endpoint and sends again, cart by cart in
 * order, every event since `since` that failed or was skipped.
 */
export async function recoverEndpoint(deps: Deps, platformUuid: string, since: Date): Promise<{ platformUuid: string; eventIds: string[] }> {
  const { db } = deps;
  const updated = await db`
    update webhook_endpoints set status = 'enabled', disabled_reason = null, failing_since = null, updated_at = now()
    where platform_uuid = ${platformUuid}`;
  if (updated.count === 0) throw new MerchantNotFoundError(platformUuid);
  const events = await db<{ id: string; cart_id: string }[]>`
    select id, cart_id from webhook_events
    where platform_uuid = ${platformUuid} and created_at >= ${since} and delivery_status in ('failed', 'skipped')
    order by cart_id, sequence`;
  for (const event of events) await requestDelivery(deps.client, deps.config, event.cart_id, { eventId: event.id, trigger: 'recover' });
  return { platformUuid, eventIds: events.map((e) => e.id) };
}
