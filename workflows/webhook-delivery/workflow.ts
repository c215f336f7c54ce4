import { ActivityFailure, condition, continueAsNew, log, proxyActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookDeliveryActivities } from '../../activities/webhook-delivery/index.js';
import { DELIVERY_FAILURE, type DeliveryRequest } from '../../core/webhooks/delivery.js';
import { deliverEventSignal, type WebhookDeliveryInput } from './messages.js';

/** With nothing left to send for this long, the workflow ends; the next event starts it again. */
const IDLE_BEFORE_CLOSING = '1 minute';

/**
 * Delivers one cart's webhook events, one at a time and in the order they were recorded, so a
 * merchant never sees `order_updated(failed)` before `order_updated(processing)`. One workflow per
 * cart keeps a slow or dead endpoint from delaying any other cart or merchant.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<void> {
  const queue: DeliveryRequest[] = [...(input.queued ?? [])];
  /** queue[0] is being delivered right now. */
  let delivering = false;
  setHandler(deliverEventSignal, (request) => {
    // A request equal to one still waiting is a repeat of it (requestDelivery is safe to retry). One
    // equal to the request being delivered is a new one: an operator replaying the event again.
    const waiting = delivering ? queue.slice(1) : queue;
    if (!waiting.some((q) => q.eventId === request.eventId && q.trigger === request.trigger)) queue.push(request);
  });

  // The retry table lives in the activity (ApplicationFailure.nextRetryDelay): it decides each delay,
  // honouring Retry-After, and reports a spent schedule as a result rather than an error. This policy
  // only paces retries after crashes and timeouts, which never stop: an event is not given up because
  // our own worker died.
  const { deliverWebhook } = proxyActivities<WebhookDeliveryActivities>({
    // The HTTP exchange is bounded by attemptTimeoutMs; the margin covers reading and recording.
    startToCloseTimeout: input.attemptTimeoutMs + 5_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: [DELIVERY_FAILURE.eventMissing] },
  });

  for (;;) {
    // The Temporal UI's current details; each attempt's number and next retry show on the pending activity.
    setCurrentDetails(
      queue.length === 0
        ? 'nothing to deliver: waiting up to a minute for the next event'
        : `delivering webhook event ${queue[0]!.eventId}, ${queue.length - 1} more queued`,
    );
    if (queue.length === 0 && !(await condition(() => queue.length > 0, IDLE_BEFORE_CLOSING))) return;
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof webhookDelivery>({ ...input, queued: queue });
    }
    const next = queue[0]!;
    delivering = true;
    setCurrentDetails(`delivering webhook event ${next.eventId} (${next.trigger}), ${queue.length - 1} more queued`);
    try {
      await deliverWebhook(next);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      log.error('webhook delivery gave up on an event', { eventId: next.eventId, error: err.cause?.message });
    } finally {
      delivering = false;
    }
    queue.shift();
    if (next.last && queue.length === 0) return;
  }
}
