import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { DELIVERY_FAILURE, type AttemptDelivery, type DeliveryOutcome, type DeliveryRequest } from '../../core/webhooks/delivery.js';
import { createDeliveryAttempt as createAttempt, WebhookEventMissingError } from '../../core/webhooks/delivery-attempt.js';
import { forgetQueuedReplay } from '../../core/webhooks/event-store.js';
import type { postWebhook } from '../../core/webhooks/http-post.js';
import type { ActivityMetrics } from '../metrics.js';

type DeliveryDeps = { config: Config; db: Db; logger: Logger; metrics: ActivityMetrics; postWebhook?: typeof postWebhook };

/**
 * The one delivery attempt (core/webhooks/delivery-attempt.ts) as Temporal runs it: the delivery
 * activity's, and a cart session's own first one (activities/cart-session/ledger.ts). A failure the
 * schedule retries is thrown with the table's delay as `nextRetryDelay`; an outcome that ends the
 * delivery (2xx, spent schedule, a failed replay, 410, disabled endpoint) is returned.
 */
export function createDeliveryAttempt(deps: DeliveryDeps): AttemptDelivery {
  const attempt = createAttempt(deps);
  return async (request, options) => {
    const report = await attempt(request, options).catch((err: unknown) => {
      if (err instanceof WebhookEventMissingError) throw ApplicationFailure.nonRetryable(err.message, DELIVERY_FAILURE.eventMissing);
      throw err;
    });
    if (report.outcome !== 'retrying') return report.outcome;
    throw ApplicationFailure.create({
      type: DELIVERY_FAILURE.attemptFailed,
      message: report.sent?.responseStatus != null ? `endpoint answered ${report.sent.responseStatus}` : `no answer: ${report.sent?.error}`,
      nextRetryDelay: report.retryInMs,
    });
  };
}

/** One HTTP attempt per activity attempt: the delivery workflow moves to the next event once one returns. */
export function createWebhookDeliveryActivities(deps: DeliveryDeps) {
  const attemptDelivery = createDeliveryAttempt(deps);
  return {
    async deliverWebhook(request: DeliveryRequest): Promise<DeliveryOutcome> {
      const { info, cancellationSignal } = Context.current();
      // A replay that waited in the line leaves it now: one asked from here on is a new one (core/webhooks/replay.ts).
      if (request.trigger === 'replay' && request.endpointId) await forgetQueuedReplay(deps.db, request.eventId, request.endpointId);
      // Attempts made before the hand-off (a cart session's first, activities/cart-session/ledger.ts) count in the retry table.
      return attemptDelivery(request, { attempt: info.attempt + (request.attemptsMade ?? 0), signal: cancellationSignal });
    },
  };
}

export type WebhookDeliveryActivities = ReturnType<typeof createWebhookDeliveryActivities>;
