import { Counter, Registry } from 'prom-client';

/**
 * Prometheus metrics of one checkout-page instance, in a registry of its own (like the API's, so
 * several apps in one process do not collide), served at the page's `GET /metrics` to the operator's
 * token. Only what the page alone sees: refusals by its abuse limits.
 */
export function createWebMetrics() {
  const registry = new Registry();
  const otpSendsRefused = new Counter({
    name: 'checkout_otp_sends_refused_total',
    help: 'One-time-code sends and resends refused by a rate limit, by limit: destination (OTP_SENDS_PER_DESTINATION), client (OTP_SENDS_PER_CLIENT), sms_merchant (SMS_PER_MERCHANT_PER_HOUR) or sms_deployment (SMS_PER_DEPLOYMENT_PER_HOUR).',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const pageActionsRefused = new Counter({
    name: 'checkout_page_actions_rate_limited_total',
    help: 'Checkout form posts refused by RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT.',
    registers: [registry],
  });
  return { registry, otpSendsRefused, pageActionsRefused };
}

export type WebMetrics = ReturnType<typeof createWebMetrics>;
