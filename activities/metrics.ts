import { Counter, Gauge, Registry } from 'prom-client';
import { createDeliveryMetrics } from '../core/webhooks/delivery-metrics.js';

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
  const delivery = createDeliveryMetrics(registry);
  const otpSends = new Counter({
    name: 'checkout_otp_sends_total',
    help: 'One-time codes handed to a sender, by channel (sms, email) and result (sent, failed).',
    labelNames: ['channel', 'result'] as const,
    registers: [registry],
  });
  const recoveryReminders = new Counter({
    name: 'checkout_recovery_reminders_total',
    help: 'Abandoned-cart reminders, by channel (sms, email) and result: sent, failed (the provider refused; retried), or refused (a message budget was spent; dropped).',
    labelNames: ['channel', 'result'] as const,
    registers: [registry],
  });
  const refunds = new Counter({
    name: 'checkout_refunds_total',
    help: 'Refund calls the payment processor answered, by outcome: refunded, or declined (the refund fails and its amount is released).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const integrityRuns = new Counter({
    name: 'checkout_page_integrity_runs_total',
    help: 'Runs of the payment page tamper check that finished, by result: clean, or differences (a page differs from its inventory or header baseline).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const integrityAlerts = new Counter({
    name: 'checkout_page_integrity_alerts_total',
    help: 'Payment page integrity alerts raised, by page variant: one per distinct difference, never again while it is not closed.',
    labelNames: ['variant'] as const,
    registers: [registry],
  });
  const integrityOpenAlerts = new Gauge({
    name: 'checkout_page_integrity_open_alerts',
    help: 'Payment page integrity alerts not closed (open or acknowledged), as of the last tamper check run of this worker.',
    registers: [registry],
  });
  return { registry, payments, ...delivery, otpSends, recoveryReminders, refunds, integrityRuns, integrityAlerts, integrityOpenAlerts };
}

export type ActivityMetrics = ReturnType<typeof createActivityMetrics>;
