import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { Logger } from '../../core/logger.js';
import { disableEndpoint, findDeliveryEndpoint, recordEndpointFailure, recordEndpointSuccess } from '../../core/merchants/merchant-store.js';
import { liveWebhookSecrets } from '../../core/merchants/webhook-secrets.js';
import { DELIVERY_FAILURE, type AttemptDelivery, type DeliveryOutcome, type DeliveryRequest } from '../../core/webhooks/delivery.js';
import type { DeliveryError } from '../../core/webhooks/delivery-errors.js';
import { openEventBody } from '../../core/webhooks/event-body-seal.js';
import { completeAttempt, ensureDelivery, findEvent, recordDeliveredAttempt, setDeliveryStatus, startAttempt } from '../../core/webhooks/event-store.js';
import { postWebhook, type PostOutcome } from '../../core/webhooks/http-post.js';
import { nextAttemptDelayMs, parseRetryAfter } from '../../core/webhooks/retry-schedule.js';
import { webhookHeaders } from '../../core/webhooks/signing.js';
import { webhookTargets } from '../../core/webhooks/url-safety.js';
import type { ActivityMetrics } from '../metrics.js';

const isSuccess = (status: number | undefined) => status !== undefined && status >= 200 && status <= 299;

type DeliveryDeps = { config: Config; db: Db; logger: Logger; metrics: ActivityMetrics; postWebhook?: typeof postWebhook };

/**
 * One delivery attempt, recorded, signed, counted and logged: the delivery activity's, and a cart
 * session's own first one (activities/cart-session/ledger.ts). It owns the retry table: a failure to
 * retry is thrown with the schedule's delay (docs/decisions/webhooks.md) as `nextRetryDelay`; an outcome
 * that ends the delivery (2xx, spent schedule, a failed replay, 410, disabled endpoint) is returned.
 */
export function createDeliveryAttempt(deps: DeliveryDeps): AttemptDelivery {
  const { config, db, logger, metrics } = deps;
  const post = deps.postWebhook ?? postWebhook;

  /** Status classes, not statuses, and the post's own error classes: a bounded set of series. */
  function countAttempt(result: 'delivered' | 'retrying' | 'failed' | 'gone' | 'endpoint_disabled', outcome: PostOutcome) {
    const error = outcome.errorClass ?? (isSuccess(outcome.status) ? 'none' : `http_${String(outcome.status).charAt(0)}xx`);
    metrics.webhookAttempts.inc({ result, error });
    metrics.webhookAttemptDuration.observe({ result }, outcome.latencyMs / 1000);
  }

  /**
   * A failed attempt as stored: its category (the status itself is in http_status) and the endpoint's
   * own answer, if any; what Node said of a failure stays in the log line (errorDetail).
   */
  async function recordAttempt(attemptId: string, outcome: PostOutcome, nextAttemptAt?: Date) {
    const errorClass: DeliveryError = outcome.errorClass ?? 'http_status';
    await completeAttempt(db, attemptId, {
      httpStatus: outcome.status ?? null,
      errorClass,
      latencyMs: outcome.latencyMs,
      responseExcerpt: outcome.excerpt ?? null,
      nextAttemptAt: nextAttemptAt ?? null,
    });
  }

  async function disable(endpointId: string, reason: string) {
    await disableEndpoint(db, endpointId, reason);
    logger.warn({ endpointId, reason }, 'webhook endpoint disabled');
  }

  /**
   * One HTTP attempt: `attempt` numbers it (the retry table's row), `signal` cancels it, `deadline` ends
   * its request before the configured timeout would. Throws DELIVERY_FAILURE.attemptFailed, with the
   * delay before the next attempt as `nextRetryDelay`, when the attempt failed and the schedule goes on.
   */
  async function attemptDelivery(request: DeliveryRequest, options: { attempt: number; signal?: AbortSignal; deadline?: number }): Promise<DeliveryOutcome> {
    const { attempt } = options;
    const event = await findEvent(db, request.eventId);
    const endpoint = event && (await findDeliveryEndpoint(db, event.platform_uuid, request.endpointId));
    if (!event || !endpoint) throw ApplicationFailure.nonRetryable(`webhook event ${request.eventId} does not exist`, DELIVERY_FAILURE.eventMissing);
    const status = await ensureDelivery(db, event.id, endpoint.endpointId);
    const setStatus = (next: Parameters<typeof setDeliveryStatus>[3]) => setDeliveryStatus(db, event.id, endpoint.endpointId, next);

    // A scheduled delivery happens once; only an operator or the merchant sends an event again.
    if (request.trigger === 'scheduled' && status !== 'pending') return 'already_delivered';
    // A replay goes through to an endpoint disabled by its failures (asking is the replayer's call),
    // never to one an operator disabled: that decision binds until an operator enables it again.
    // Nothing goes to a deleted endpoint.
    if (endpoint.deleted || (endpoint.status === 'disabled' && (request.trigger === 'scheduled' || endpoint.disabledByOperator))) {
      await setStatus('skipped');
      return 'skipped';
    }

    const rawBody = JSON.stringify(openEventBody(config.keyring, event.payload));
    const secrets = await liveWebhookSecrets(db, config.keyring, endpoint.endpointId);
    const attemptedAt = new Date();
    const attemptId = await startAttempt(db, {
      eventId: event.id,
      endpointId: endpoint.endpointId,
      attempt,
      trigger: request.trigger,
      attemptedAt,
      url: endpoint.url,
    });
    const headers = webhookHeaders({
      eventId: event.id,
      event: event.event,
      attempt,
      rawBody,
      secrets,
      timestampSeconds: Math.floor(attemptedAt.getTime() / 1000),
    });
    const outcome = await post({
      url: endpoint.url,
      headers,
      body: rawBody,
      // Counted once the request is ready, so the reads before it do not stretch a deadline.
      timeoutMs: Math.max(1, Math.min(config.webhooks.timeoutMs, (options.deadline ?? Infinity) - Date.now())),
      targets: webhookTargets(endpoint.environment, config.webhooks),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const log = {
      eventId: event.id,
      endpointId: endpoint.endpointId,
      attempt,
      trigger: request.trigger,
      status: outcome.status,
      errorClass: outcome.errorClass,
      ...(outcome.errorDetail ? { errorDetail: outcome.errorDetail } : {}),
      latencyMs: outcome.latencyMs,
    };

    if (isSuccess(outcome.status)) {
      await recordDeliveredAttempt(
        db,
        { attemptId, eventId: event.id, endpointId: endpoint.endpointId },
        { httpStatus: outcome.status!, latencyMs: outcome.latencyMs, responseExcerpt: outcome.excerpt ?? null },
      );
      await recordEndpointSuccess(db, endpoint.endpointId);
      countAttempt('delivered', outcome);
      // Operators' replays would measure how old the event was, not how long delivery took.
      if (request.trigger === 'scheduled') metrics.webhookDeliveryLatency.observe((Date.now() - Date.parse(event.payload.createdAt)) / 1000);
      logger.info(log, 'webhook delivered');
      return 'delivered';
    }
    if (outcome.status === 410) {
      await recordAttempt(attemptId, outcome);
      // Disabled before the event reads as failed: whoever sees the failure sees why.
      await disable(endpoint.endpointId, 'the endpoint answered 410 Gone');
      await setStatus('failed');
      countAttempt('gone', outcome);
      return 'endpoint_disabled';
    }

    const failingSince = await recordEndpointFailure(db, endpoint.endpointId, attemptedAt);
    if (attemptedAt.getTime() - failingSince.getTime() >= config.webhooks.disableAfterMs) {
      await recordAttempt(attemptId, outcome);
      await disable(endpoint.endpointId, `every attempt failed since ${failingSince.toISOString()}`);
      await setStatus('failed');
      countAttempt('endpoint_disabled', outcome);
      return 'endpoint_disabled';
    }

    // A replay is one attempt, asked by hand (and limited so, core/webhooks/manual-sends.ts): never put
    // back on the retry schedule, whose 75 hours would turn one request into a dozen.
    const delay =
      request.trigger === 'replay'
        ? undefined
        : nextAttemptDelayMs(config.webhooks.retryScheduleMs, attempt, { retryAfterMs: parseRetryAfter(outcome.retryAfter, attemptedAt) });
    if (delay === undefined) {
      await recordAttempt(attemptId, outcome);
      await setStatus('failed');
      countAttempt('failed', outcome);
      logger.warn(log, request.trigger === 'replay' ? 'webhook replay failed; not retried, replayable' : 'webhook delivery failed for good; replayable');
      return 'failed';
    }
    await recordAttempt(attemptId, outcome, new Date(attemptedAt.getTime() + delay));
    countAttempt('retrying', outcome);
    logger.info({ ...log, nextAttemptInMs: delay }, 'webhook attempt failed; will retry');
    throw ApplicationFailure.create({
      type: DELIVERY_FAILURE.attemptFailed,
      message: outcome.status !== undefined ? `endpoint answered ${outcome.status}` : `no answer: ${outcome.errorClass}`,
      nextRetryDelay: delay,
    });
  }

  return attemptDelivery;
}

/** One HTTP attempt per activity attempt: the delivery workflow moves to the next event once one returns. */
export function createWebhookDeliveryActivities(deps: DeliveryDeps) {
  const attemptDelivery = createDeliveryAttempt(deps);
  return {
    async deliverWebhook(request: DeliveryRequest): Promise<DeliveryOutcome> {
      const { info, cancellationSignal } = Context.current();
      // Attempts made before the hand-off (a cart session's first, activities/cart-session/ledger.ts) count in the retry table.
      return attemptDelivery(request, { attempt: info.attempt + (request.attemptsMade ?? 0), signal: cancellationSignal });
    },
  };
}

export type WebhookDeliveryActivities = ReturnType<typeof createWebhookDeliveryActivities>;
