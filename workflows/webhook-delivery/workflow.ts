import {
  ActivityFailure,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { WebhookDeliveryActivities } from '../../activities/webhook-delivery/index.js';
import { DELIVERY_FAILURE, type DeliveryRequest } from '../../core/webhooks/delivery.js';
import { RELEASE_1_1 } from '../release-patches.js';
import { deliverEventSignal, type WebhookDeliveryInput } from './messages.js';

/** With nothing left to send for this long, the workflow ends; the next event starts it again. */
const IDLE_BEFORE_CLOSING = '1 minute';

/**
 * Delivers one cart's webhook events to each endpoint one at a time and in the order they were
 * recorded, so a merchant never sees `order_updated(failed)` before `order_updated(processing)`. One
 * workflow per cart keeps a slow or dead endpoint from delaying any other cart or merchant; within the
 * cart, each endpoint has its own line, so one endpoint's retries never delay another's events.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<void> {
  // Each endpoint gets its own line from 1.1; a 1.0 execution keeps its single line until it ends or continues as new.
  if (patched(RELEASE_1_1)) return deliverPerEndpoint(input);
  return deliverInOneLine(input);
}

// The retry table lives in the activity (ApplicationFailure.nextRetryDelay): it decides each delay,
// honouring Retry-After, and reports a spent schedule as a result rather than an error. This policy
// only paces retries after crashes and timeouts, which never stop: an event is not given up because
// our own worker died.
const deliveryActivities = (input: WebhookDeliveryInput) =>
  proxyActivities<WebhookDeliveryActivities>({
    // The HTTP exchange is bounded by attemptTimeoutMs; the margin covers reading and recording.
    startToCloseTimeout: input.attemptTimeoutMs + 5_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: [DELIVERY_FAILURE.eventMissing] },
  });

/**
 * A request whose first attempt the cart session made itself waits out the retry table's delay after
 * it. Only such requests carry `retryAt`, and none existed before it, so histories replay unchanged.
 */
async function retryDelayOf(request: DeliveryRequest): Promise<void> {
  const waitMs = request.retryAt ? Date.parse(request.retryAt) - Date.now() : 0;
  if (waitMs > 0) await sleep(waitMs, { summary: `retry of webhook event ${request.eventId} after the session's own attempt failed` });
}

/** The line a request waits in: its endpoint's, or the merchant's first endpoint's for a request that names none. */
const lineOf = (request: DeliveryRequest) => request.endpointId ?? '';

/**
 * Puts a request at the end of its line unless it repeats one still waiting there (requestDelivery is
 * safe to retry). One equal to the request being delivered (the line's first, while `delivering`) is a
 * new one: a replay of the event.
 */
function enqueueOnce(line: DeliveryRequest[], request: DeliveryRequest, delivering: boolean): void {
  const waiting = delivering ? line.slice(1) : line;
  if (!waiting.some((q) => q.eventId === request.eventId && q.trigger === request.trigger)) line.push(request);
}

async function deliverPerEndpoint(input: WebhookDeliveryInput): Promise<void> {
  const { deliverWebhook } = deliveryActivities(input);
  /** Each endpoint's requests in order; lines[x][0] is being delivered while x is in `busy`. */
  const lines = new Map<string, DeliveryRequest[]>();
  const busy = new Set<string>();
  let lastDelivered = false;
  let draining = false;
  const enqueue = (request: DeliveryRequest) => {
    const line = lines.get(lineOf(request)) ?? [];
    lines.set(lineOf(request), line);
    enqueueOnce(line, request, busy.has(lineOf(request)));
  };
  for (const request of input.queued ?? []) enqueue(request);
  setHandler(deliverEventSignal, enqueue);

  const waiting = () => [...lines.values()].reduce((n, line) => n + line.length, 0);
  const runLine = async (key: string, line: DeliveryRequest[]) => {
    busy.add(key);
    try {
      while (line.length > 0 && !draining) {
        const next = line[0]!;
        await retryDelayOf(next);
        try {
          await deliverWebhook(next);
        } catch (err) {
          if (!(err instanceof ActivityFailure)) throw err;
          log.error('webhook delivery gave up on an event', { eventId: next.eventId, endpointId: next.endpointId, error: err.cause?.message });
        }
        line.shift();
        if (next.last) lastDelivered = true;
      }
    } finally {
      busy.delete(key);
    }
  };

  const running: Array<Promise<void>> = [];
  for (;;) {
    for (const [key, line] of lines) if (line.length > 0 && !busy.has(key)) running.push(runLine(key, line));
    setCurrentDetails(
      waiting() === 0
        ? 'nothing to deliver: waiting up to a minute for the next event'
        : `delivering webhook events to ${busy.size} endpoint(s), ${waiting()} queued in all`,
    );
    const idle = () => busy.size === 0 && waiting() === 0;
    // Wakes on a new request for an endpoint whose line is not running, when every line is done, or when
    // the history has grown enough to continue as new.
    const wake = () => [...lines].some(([key, line]) => line.length > 0 && !busy.has(key)) || idle() || workflowInfo().continueAsNewSuggested;
    if (idle()) {
      // The cart's last event delivered with nothing else waiting: no more events will come.
      if (lastDelivered) return;
      if (!(await condition(() => waiting() > 0, IDLE_BEFORE_CLOSING))) return;
      continue;
    }
    await condition(wake);
    if (workflowInfo().continueAsNewSuggested) {
      draining = true;
      await condition(() => busy.size === 0);
      await Promise.all(running);
      await continueAsNew<typeof webhookDelivery>({ ...input, queued: [...lines.values()].flat() });
    }
  }
}

async function deliverInOneLine(input: WebhookDeliveryInput): Promise<void> {
  const queue: DeliveryRequest[] = [...(input.queued ?? [])];
  /** queue[0] is being delivered right now. */
  let delivering = false;
  setHandler(deliverEventSignal, (request) => enqueueOnce(queue, request, delivering));
  const { deliverWebhook } = deliveryActivities(input);

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
    await retryDelayOf(next);
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
