import type { Db } from '../db/client.js';
import { reenableWebhookEndpoint } from './endpoints.js';
import type { RequestDelivery } from './delivery.js';
import { undeliveredEventsSince } from './event-store.js';

/**
 * After an outage on the merchant's side: re-enables the endpoint (the merchant's first without
 * `endpointId`) and sends it again, cart by cart in order, every event since `since` that failed or was
 * skipped there. `requestDelivery` is workflows/webhook-delivery/client.ts deliveryRequests(client, config).
 */
export async function recoverEndpoint(
  deps: { db: Db; requestDelivery: RequestDelivery },
  platformUuid: string,
  since: Date,
  endpointId?: string,
): Promise<{ platformUuid: string; endpointId: string; eventIds: string[] }> {
  const id = await reenableWebhookEndpoint(deps.db, platformUuid, endpointId);
  const events = await undeliveredEventsSince(deps.db, id, since);
  for (const event of events) await deps.requestDelivery(event.cart_id, { eventId: event.id, endpointId: id, trigger: 'recover' });
  return { platformUuid, endpointId: id, eventIds: events.map((e) => e.id) };
}
