import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import type { Logger } from '../core/logger.js';
import { liveWebhookSecrets } from '../core/merchants.js';
import type { DeliveryOutcome, DeliveryRequest } from '../core/webhooks/delivery-messages.js';
import type { WebhookEventName } from '../core/webhooks/events.js';
import { postWebhook, type PostOutcome } from '../core/webhooks/http-post.js';
import { nextAttemptDelayMs, parseRetryAfter } from '../core/webhooks/retry-schedule.js';
import { webhookHeaders } from '../core/webhooks/signing.js';

/** The error class of an attempt that started and never reported back (its worker stopped). */
export const NO_OUTCOME = 'no_outcome';

interface EventToDeliver {
  id: string;
  event: WebhookEventName;
  payload: unknown;
  delivery_status: 'pending' | 'delivered' | 'failed' | 'skipped';
  environment: 'sandbox' | 'production';
  endpoint_id: string;
  url: string;
  endpoint_status: 'enabled' | 'disabled';
  failing_since: Date | null;
}

/**
 * One HTTP attempt per activity attempt. The activity owns the retry table: a failure it wants retried
 * is thrown with the delay of DESIGN.md §6 as `nextRetryDelay`; an outcome that ends the delivery
 * (2xx, spent schedule, 410, disabled endpoint) is returned, so the workflow moves to the next event.
 */
export function createWebhookActivities(deps: { config: Config; db: Db; logger: Logger }) {
  const { config, db, logger } = deps;

  /**
   * Written before the request goes out, so an attempt whose worker dies mid-flight still shows, as
   * NO_OUTCOME; completed with its outcome afterwards.
   */
  async function startAttempt(event: EventToDeliver, request: DeliveryRequest, attempt: number, at: Date): Promise<string> {
    const [row] = await db<{ id: string }[]>`
      insert into webhook_attempts (event_id, endpoint_id, attempt, trigger, attempted_at, url, error_class, latency_ms)
      values (${event.id}, ${event.endpoint_id}, ${attempt}, ${request.trigger}, ${at}, ${event.url}, ${NO_OUTCOME}, 0)
      returning id`;
    return row!.id;
  }

  async function recordAttempt(attemptId: string, outcome: PostOutcome, nextAttemptAt?: Date) {
    const errorClass = outcome.errorClass ?? (outcome.status !== undefined && (outcome.status < 200 || outcome.status > 299) ? `http_${outcome.status}` : null);
    await db`
      update webhook_attempts set http_status = ${outcome.status ?? null}, error_class = ${errorClass}, latency_ms = ${outcome.latencyMs},
        response_excerpt = ${outcome.excerpt ?? outcome.errorMessage ?? null}, next_attempt_at = ${nextAttemptAt ?? null}
      where id = ${attemptId}`;
  }

  // A replay that fails does not undo an earlier success.
  const setStatus = (eventId: string, status: 'delivered' | 'failed' | 'skipped') =>
    status === 'delivered'
      ? db`update webhook_events set delivery_status = 'delivered', delivered_at = now() where id = ${eventId}`
      : db`update webhook_events set delivery_status = ${status} where id = ${eventId} and delivery_status <> 'delivered'`;

  async function disableEndpoint(endpointId: string, reason: string) {
    await db`update webhook_endpoints set status = 'disabled', disabled_reason = ${reason}, updated_at = now() where id = ${endpointId}`;
    logger.warn({ endpointId, reason }, 'webhook endpoint disabled');
  }

  return {
    async deliverWebhook(request: DeliveryRequest): Promise<DeliveryOutcome> {
      const { attempt } = Context.current().info;
      const [event] = await db<EventToDeliver[]>`
        select ev.id, ev.event, ev.payload, ev.delivery_status, m.environment, e.id as endpoint_id, e.url, e.status as endpoint_status, e.failing_since
        from webhook_events ev join merchants m using (platform_uuid) join webhook_endpoints e using (platform_uuid)
        where ev.id = ${request.eventId}`;
      if (!event) throw ApplicationFailure.nonRetryable(`webhook event ${request.eventId} does not exist`, 'WebhookEventMissing');

      // A scheduled delivery happens once; only an operator sends an event again.
      if (request.trigger === 'scheduled' && event.delivery_status !== 'pending') return 'already_delivered';
      // An operator's replay goes through even to a disabled endpoint: asking is the operator's call.
      if (event.endpoint_status === 'disabled' && request.trigger === 'scheduled') {
        await setStatus(event.id, 'skipped');
        return 'skipped';
      }

      const rawBody = JSON.stringify(event.payload);
      const secrets = await liveWebhookSecrets(db, config.dataEncryptionKey, event.endpoint_id);
      const attemptedAt = new Date();
      const attemptId = await startAttempt(event, request, attempt, attemptedAt);
      const headers = webhookHeaders({ eventId: event.id, event: event.event, attempt, rawBody, secrets, timestampSeconds: Math.floor(attemptedAt.getTime() / 1000) });
      const outcome = await postWebhook({
        url: event.url,
        headers,
        body: rawBody,
        timeoutMs: config.webhooks.timeoutMs,
        environment: event.environment,
        signal: Context.current().cancellationSignal,
      });
      const log = { eventId: event.id, attempt, trigger: request.trigger, status: outcome.status, errorClass: outcome.errorClass, latencyMs: outcome.latencyMs };

      if (outcome.status !== undefined && outcome.status >= 200 && outcome.status <= 299) {
        await recordAttempt(attemptId, outcome);
        await setStatus(event.id, 'delivered');
        await db`update webhook_endpoints set failing_since = null where id = ${event.endpoint_id} and failing_since is not null`;
        logger.info(log, 'webhook delivered');
        return 'delivered';
      }
      if (outcome.status === 410) {
        await recordAttempt(attemptId, outcome);
        await setStatus(event.id, 'failed');
        await disableEndpoint(event.endpoint_id, 'the endpoint answered 410 Gone');
        return 'endpoint_disabled';
      }

      const [{ failing_since: failingSince } = { failing_since: attemptedAt }] = await db<{ failing_since: Date }[]>`
        update webhook_endpoints set failing_since = coalesce(failing_since, ${attemptedAt}) where id = ${event.endpoint_id} returning failing_since`;
      if (attemptedAt.getTime() - failingSince.getTime() >= config.webhooks.disableAfterMs) {
        await recordAttempt(attemptId, outcome);
        await setStatus(event.id, 'failed');
        await disableEndpoint(event.endpoint_id, `every attempt failed since ${failingSince.toISOString()}`);
        return 'endpoint_disabled';
      }

      const delay = nextAttemptDelayMs(config.webhooks.retryScheduleMs, attempt, { retryAfterMs: parseRetryAfter(outcome.retryAfter, attemptedAt) });
      if (delay === undefined) {
        await recordAttempt(attemptId, outcome);
        await setStatus(event.id, 'failed');
        logger.warn(log, 'webhook delivery failed for good; replayable');
        return 'failed';
      }
      await recordAttempt(attemptId, outcome, new Date(attemptedAt.getTime() + delay));
      logger.info({ ...log, nextAttemptInMs: delay }, 'webhook attempt failed; will retry');
      throw ApplicationFailure.create({
        type: 'WebhookAttemptFailed',
        message: outcome.status !== undefined ? `endpoint answered ${outcome.status}` : `no answer: ${outcome.errorClass}`,
        nextRetryDelay: delay,
      });
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
