import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * What every webhook attempt counts (core/webhooks/delivery-attempt.ts), in the registry of the role
 * that makes it: the worker's deliveries (activities/metrics.ts), and the replays the API and the
 * dashboard send at once (api/metrics.ts, web/metrics.ts). Same names in each, so the roles add up.
 */
export function createDeliveryMetrics(registry: Registry) {
  const webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook HTTP attempts, by result (delivered, retrying, failed: retries spent, gone: 410, endpoint_disabled) and error (none, http_4xx, http_5xx, timeout, connection_refused, …).',
    labelNames: ['result', 'error'] as const,
    registers: [registry],
  });
  const webhookAttemptDuration = new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: "One webhook HTTP attempt, connection to the end of the merchant's answer, by result.",
    labelNames: ['result'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });
  const webhookDeliveryLatency = new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'From an event being recorded to its successful delivery, retries included.',
    buckets: [0.1, 0.5, 1, 5, 30, 300, 1800, 7200, 86_400, 259_200],
    registers: [registry],
  });
  return { webhookAttempts, webhookAttemptDuration, webhookDeliveryLatency };
}

export type DeliveryMetrics = ReturnType<typeof createDeliveryMetrics>;
