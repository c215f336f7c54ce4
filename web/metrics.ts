import { Counter, Registry } from 'prom-client';
import { createDeliveryMetrics } from '../core/webhooks/delivery-metrics.js';

/**
 * Prometheus metrics of one checkout-page instance, in a registry of its own (like the API's, so
 * several apps in one process do not collide), served at the page's `GET /metrics` to the scrape
 * token (METRICS_TOKEN). Only what the page alone sees: refusals by its abuse limits, and the dashboard's replay attempts.
 */
export function createWebMetrics() {
  const registry = new Registry();
  const otpSendsRefused = new Counter({
    name: 'checkout_otp_sends_refused_total',
    help: "One-time-code sends and resends refused by a rate limit, by limit: destination (OTP_SENDS_PER_DESTINATION), client (OTP_SENDS_PER_CLIENT, or its IPv6 /48's), sms_merchant (SMS_PER_MERCHANT_PER_HOUR), sms_deployment (SMS_PER_DEPLOYMENT_PER_HOUR), sms_deployment_public (public carts' part of it, OTP_KEYED_SHARE_PERCENT), email_merchant (EMAIL_PER_MERCHANT_PER_HOUR), email_deployment (EMAIL_PER_DEPLOYMENT_PER_HOUR) or email_deployment_public.",
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const pageActionsRefused = new Counter({
    name: 'checkout_page_actions_rate_limited_total',
    help: "Checkout form posts refused by RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT (or its IPv6 /48's).",
    registers: [registry],
  });
  const cspReports = new Counter({
    name: 'checkout_csp_reports_total',
    help: "Violations browsers reported from our pages and we stored (POST /csp-reports), by type: csp-violation or integrity-violation. Any increase means a page loaded or ran something its policy refused: see the dashboard's Page integrity.",
    labelNames: ['type'] as const,
    registers: [registry],
  });
  const cspReportsRefused = new Counter({
    name: 'checkout_csp_reports_refused_total',
    help: 'Posts to /csp-reports refused, by reason: rate_limited (RATE_LIMIT_CSP_REPORTS_PER_CLIENT), too_large, media_type, malformed.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const pageStateQueries = new Counter({
    name: 'checkout_page_state_queries_total',
    help: 'Temporal state queries the checkout page made, by reason: load (an open session with no copy of its state: after a refused or concurrent update, or a writer that died mid-update), refund_check (did a refused code send reach the sender), payment_outcome (a payment outlasted PAY_OUTCOME_WAIT_MS). Each is a worker activation; a paid session on the happy path makes none (docs/decisions/page-first-load.md).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // The dashboard's replays sent at once make their attempt here (core/webhooks/replay.ts).
  const delivery = createDeliveryMetrics(registry);
  return { registry, pageStateQueries, otpSendsRefused, pageActionsRefused, cspReports, cspReportsRefused, delivery };
}

export type WebMetrics = ReturnType<typeof createWebMetrics>;
