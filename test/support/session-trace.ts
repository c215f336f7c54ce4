import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';

const { EventType, TimeoutType, WorkflowTaskFailedCause } = temporal.api.enums.v1;

/**
 * A cart session's history, one line per event (its id, time, type, and the update, activity or
 * timeout it concerns), for a test that timed out waiting on the session to say where it stood.
 */
export async function sessionTrace(client: Client, cartId: string): Promise<string> {
  try {
    const { events } = await client.workflow.getHandle(cartWorkflowId(cartId)).fetchHistory();
    return (events ?? []).map(eventLine).join('\n');
  } catch (err) {
    return `(no history: ${(err as Error).message})`;
  }
}

function eventLine(event: temporal.api.history.v1.IHistoryEvent): string {
  const at = event.eventTime ? new Date(Number(event.eventTime.seconds) * 1000 + Math.floor((event.eventTime.nanos ?? 0) / 1e6)).toISOString() : '?';
  const detail =
    event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId ??
    event.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId ??
    event.activityTaskScheduledEventAttributes?.activityType?.name ??
    event.markerRecordedEventAttributes?.markerName ??
    (event.workflowTaskTimedOutEventAttributes ? `timeout ${TimeoutType[event.workflowTaskTimedOutEventAttributes.timeoutType ?? 0]}` : undefined) ??
    (event.workflowTaskFailedEventAttributes ? `cause ${WorkflowTaskFailedCause[event.workflowTaskFailedEventAttributes.cause ?? 0]}` : undefined) ??
    event.workflowTaskCompletedEventAttributes?.identity ??
    '';
  return `${String(event.eventId)} ${at} ${EventType[event.eventType ?? 0]} ${detail}`.trimEnd();
}
