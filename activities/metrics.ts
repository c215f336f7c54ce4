import { Counter, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics of what the worker's activities do, in a registry of its own (like the API's
 * and the page's, so several workers in one process do not collide). The worker serves them at its
 * `GET /metrics` (worker/metrics.ts) with the Temporal SDK's own worker metrics.
 */
export function createActivityMetrics() {
  const registry = new Registry();
  const payments = new Counter({
    name: 'checkout_payments_total',
    help: 'Charge calls to the payment processor, by outcome: approved, declined, requires_authentication (a 3-D Secure challenge), or no_answer (retried under the same key, never a decline).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
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
  const otpSends = new Counter({
    name: 'checkout_otp_sends_total',
    help: 'One-time codes handed to a sender, by channel (sms, email) and result (sent, failed).',
    labelNames: ['channel', 'result'] as const,
    registers: [registry],
  });
  const refunds = new Counter({
    name: 'checkout_refunds_total',
    help: 'Refund calls the payment processor answered, by outcome: refunded, or declined (the refund fails and its amount is released).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  return { registry, payments, webhookAttempts, webhookAttemptDuration, webhookDeliveryLatency, otpSends, refunds };
}

export type ActivityMetrics = ReturnType<typeof createActivityMetrics>;
