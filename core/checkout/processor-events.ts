import type { Sql } from '../db/client.js';

/**
 * The `processor_events` table's one writer: each of the processor's events, once by its id
 * (POST /processor-events/stripe). Only its type and the object it is about are kept.
 */

export type ProcessorEventOutcome = 'handled' | 'ignored';

export async function processorEventSeen(sql: Sql, processor: string, eventId: string): Promise<boolean> {
  const rows = await sql`select 1 from processor_events where processor = ${processor} and id = ${eventId}`;
  return rows.length > 0;
}

/** True when this call recorded it; false when it was already there (a redelivery). */
export async function recordProcessorEvent(
  sql: Sql,
  event: { processor: string; id: string; type: string; objectId: string | undefined; outcome: ProcessorEventOutcome },
): Promise<boolean> {
  const rows = await sql`
    insert into processor_events (processor, id, type, object_id, outcome)
    values (${event.processor}, ${event.id}, ${event.type}, ${event.objectId ?? null}, ${event.outcome})
    on conflict do nothing
    returning id`;
  return rows.length === 1;
}
