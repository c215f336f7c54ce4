import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../logger.js';
import { disableEndpoint, findDeliveryEndpoint, recordEndpointFailure, recordEndpointSuccess } from '../merchants/merchant-store.js';
import { liveWebhookSecrets } from './secrets.js';
import type { DeliveryOutcome, DeliveryRequest } from './delivery.js';
import type { DeliveryError } from '../outbound/delivery-errors.js';
import type { DeliveryMetrics } from './delivery-metrics.js';
import { openEventBody } from './event-body-seal.js';
import { redactContact } from './excerpt-redaction.js';
import { completeAttempt, ensureDelivery, findEvent, recordDeliveredAttempt, setDeliveryStatus, startAttempt } from './event-store.js';
import { postWebhook, type PostOutcome } from './http-post.js';
import { nextAttemptDelayMs, parseRetryAfter } from './retry-schedule.js';
import { webhookHeaders } from './signing.js';
import { webhookTargets } from '../outbound/url-safety.js';

const isSuccess = (status: number | undefined) => status !== undefined && status >= 200 && status <= 299;

export type DeliveryAttemptDeps = {
  config: Pick<Config, 'keyring' | 'webhooks'>;
  db: Db;
  logger: Logger;
  metrics: DeliveryMetrics;
  postWebhook?: typeof postWebhook;
};

/** What one attempt did: how the delivery stands, and the HTTP exchange when one was made. */
export interface AttemptReport {
  /** `retrying`: the attempt failed and the schedule goes on, after `retryInMs`. */
  outcome: DeliveryOutcome | 'retrying';
  retryInMs?: number;
  /** Absent when nothing was sent (already delivered, skipped). */
  sent?: { responseStatus: number | null; error: DeliveryError | null; durationMs: number };
}

export type MakeDeliveryAttempt = (request: DeliveryRequest, options: { attempt: number; signal?: AbortSignal; deadline?: number }) => Promise<AttemptReport>;

export class WebhookEventMissingError extends Error {
  override name = 'WebhookEventMissingError';
  constructor(readonly eventId: string) {
    super(`webhook event ${eventId} does not exist`);
  }
}

/**
 * One delivery attempt, recorded, signed, counted and logged: the one every sender makes, whether the
 * delivery activity (activities/webhook-delivery/index.ts, which turns a `retrying` report into
 * Temporal's retry), a cart session's own first attempt, or a replay sent at once by the API or the
 * dashboard (core/webhooks/replay.ts). It owns the retry table (docs/decisions/webhooks.md): a failure
 * to retry reports the schedule's delay; every other outcome ends the delivery. `attempt` numbers it
 * (the retry table's row), `signal` cancels it, `deadline` (epoch ms) ends its request before the
 * configured timeout would. Throws WebhookEventMissingError for an event or endpoint not found.
 */
export function createDeliveryAttempt(deps: DeliveryAttemptDeps): MakeDeliveryAttempt {
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
   * own answer, if any, without the order's contact (`excerpt`); what Node said of a failure stays in
   * the log line (errorDetail).
   */
  async function recordAttempt(attemptId: string, outcome: PostOutcome, excerpt: string | undefined, nextAttemptAt?: Date) {
    await completeAttempt(db, attemptId, {
      httpStatus: outcome.status ?? null,
      errorClass: errorOf(outcome),
      latencyMs: outcome.latencyMs,
      responseExcerpt: excerpt ?? null,
      nextAttemptAt: nextAttemptAt ?? null,
    });
  }

  async function disable(endpointId: string, reason: string) {
    await disableEndpoint(db, endpointId, reason);
    logger.warn({ endpointId, reason }, 'webhook endpoint disabled');
  }

  return async function attemptDelivery(request, options) {
    const { attempt } = options;
    const event = await findEvent(db, request.eventId);
    const endpoint = event && (await findDeliveryEndpoint(db, event.platform_uuid, request.endpointId));
    if (!event || !endpoint) throw new WebhookEventMissingError(request.eventId);
    const delivery = await ensureDelivery(db, event.id, endpoint.endpointId);
    const setStatus = (next: Parameters<typeof setDeliveryStatus>[3]) => setDeliveryStatus(db, event.id, endpoint.endpointId, next);

    // A scheduled delivery happens once; only an operator or the merchant sends an event again.
    if (request.trigger === 'scheduled' && delivery.status !== 'pending') return { outcome: 'already_delivered' };
    // A replay goes through to an endpoint disabled by its failures (asking is the replayer's call),
    // never to one an operator disabled: that decision binds until an operator enables it again.
    // Nothing goes to a deleted endpoint.
    if (endpoint.deleted || (endpoint.status === 'disabled' && (request.trigger === 'scheduled' || endpoint.disabledByOperator))) {
      await setStatus('skipped');
      return { outcome: 'skipped' };
    }

    const body = openEventBody(config.keyring, event.payload);
    const rawBody = JSON.stringify(body);
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
    // The one place an answer becomes an excerpt to store: an endpoint that echoes our body must not leave the contact in clear.
    const excerpt = redactContact(outcome.excerpt, 'customer' in body.data ? body.data.customer : undefined);
    const sent = { responseStatus: outcome.status ?? null, error: isSuccess(outcome.status) ? null : errorOf(outcome), durationMs: outcome.latencyMs };
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
        { httpStatus: outcome.status!, latencyMs: outcome.latencyMs, responseExcerpt: excerpt ?? null },
      );
      await recordEndpointSuccess(db, endpoint.endpointId);
      countAttempt('delivered', outcome);
      // Operators' replays would measure how old the event was, not how long delivery took.
      if (request.trigger === 'scheduled') metrics.webhookDeliveryLatency.observe((Date.now() - Date.parse(event.payload.createdAt)) / 1000);
      logger.info(log, 'webhook delivered');
      return { outcome: 'delivered', sent };
    }
    if (outcome.status === 410) {
      await recordAttempt(attemptId, outcome, excerpt);
      // Disabled before the event reads as failed: whoever sees the failure sees why.
      await disable(endpoint.endpointId, 'the endpoint answered 410 Gone');
      await setStatus('failed');
      countAttempt('gone', outcome);
      return { outcome: 'endpoint_disabled', sent };
    }

    const failingSince = await recordEndpointFailure(db, endpoint.endpointId, attemptedAt);
    if (attemptedAt.getTime() - failingSince.getTime() >= config.webhooks.disableAfterMs) {
      await recordAttempt(attemptId, outcome, excerpt);
      await disable(endpoint.endpointId, `every attempt failed since ${failingSince.toISOString()}`);
      await setStatus('failed');
      countAttempt('endpoint_disabled', outcome);
      return { outcome: 'endpoint_disabled', sent };
    }

    // A replay is one attempt, asked by hand (and limited so, core/webhooks/manual-sends.ts): never put
    // back on the retry schedule, whose 75 hours would turn one request into a dozen.
    const delay =
      request.trigger === 'replay'
        ? undefined
        : nextAttemptDelayMs(config.webhooks.retryScheduleMs, attempt, { retryAfterMs: parseRetryAfter(outcome.retryAfter, attemptedAt) });
    if (delay === undefined) {
      await recordAttempt(attemptId, outcome, excerpt);
      // A replay sent at once may overtake the event's own scheduled delivery, still pending and
      // retrying: that delivery's retries decide its status, not this one extra attempt.
      const scheduledStillOn = request.trigger === 'replay' && delivery.status === 'pending' && !delivery.made;
      if (!scheduledStillOn) await setStatus('failed');
      countAttempt('failed', outcome);
      logger.warn(log, request.trigger === 'replay' ? 'webhook replay failed; not retried, replayable' : 'webhook delivery failed for good; replayable');
      return { outcome: 'failed', sent };
    }
    await recordAttempt(attemptId, outcome, excerpt, new Date(attemptedAt.getTime() + delay));
    countAttempt('retrying', outcome);
    logger.info({ ...log, nextAttemptInMs: delay }, 'webhook attempt failed; will retry');
    return { outcome: 'retrying', retryInMs: delay, sent };
  };
}

const errorOf = (outcome: PostOutcome): DeliveryError => outcome.errorClass ?? 'http_status';
