import { describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { freePort } from '../../scripts/free-port.js';
import { merchantApi, paidCarts } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const metricsPort = await freePort();

/** The value of the sample `name{labels}` in Prometheus text, whatever the labels' order; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe("the worker's /metrics", () => {
  const stack = useTestStack({ WORKER_METRICS_PORT: String(metricsPort), WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200,200' }, { serveWorkerMetrics: true });
  const scrape = async () => {
    const response = await fetch(stack.workerMetricsUrl!, { headers: { authorization: `Bearer ${stack.config.metricsToken}` } });
    expect(response.status).toBe(200);
    return response.text();
  };

  it('counts payments, code sends, webhook attempts and their latency, and refunds, beside the Temporal SDK worker metrics', async () => {
    expect((await fetch(stack.workerMetricsUrl!)).status).toBe(401);
    // The merchant's endpoint fails the very first attempt, then takes everything.
    const receiver = await startWebhookReceiver((_, nth) => ({ status: nth === 1 ? 503 : 200 }));
    try {
      const merchant = await stack.createMerchant({ webhookUrl: receiver.url });
      const { driver, paidCart } = paidCarts(stack, merchant);
      const paid = await paidCart();
      const declined = await driver.verifiedSession();
      expect((await driver.pay(declined, SANDBOX_CARDS.declined)).status).toBe('failed');
      expect((await merchantApi(stack, merchant.apiKey).refund(paid, { amount: 500 })).status).toBe(201);

      // paid, failed, refunded (each outcome prompt, so none announced as processing): three events delivered, the first after one retry.
      const text = await waitFor(
        async () => {
          const scraped = await scrape();
          return sample(scraped, 'webhook_delivery_attempts_total', { result: 'delivered', error: 'none' }) === 3 &&
            sample(scraped, 'checkout_refunds_total', { outcome: 'refunded' }) === 1
            ? scraped
            : undefined;
        },
        { timeoutMs: 30_000, what: 'three webhooks delivered and the refund counted' },
      );
      expect(sample(text, 'checkout_payments_total', { outcome: 'approved' })).toBe(1);
      expect(sample(text, 'checkout_payments_total', { outcome: 'declined' })).toBe(1);
      expect(sample(text, 'checkout_otp_sends_total', { channel: 'email', result: 'sent' })).toBe(2);
      expect(sample(text, 'webhook_delivery_attempts_total', { result: 'retrying', error: 'http_5xx' })).toBe(1);
      expect(sample(text, 'webhook_attempt_duration_seconds_count', { result: 'delivered' })).toBe(3);
      expect(sample(text, 'webhook_delivery_latency_seconds_count')).toBe(3);
      // The first event waited for its retry; the +Inf bucket holds every delivery.
      expect(sample(text, 'webhook_delivery_latency_seconds_bucket', { le: '0.1' })).toBeLessThan(3);
      expect(sample(text, 'webhook_delivery_latency_seconds_bucket', { le: '+Inf' })).toBe(3);
      // The process's own figures, and the Temporal SDK's metrics for this worker's task queue.
      expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(text).toMatch(new RegExp(`^temporal_\\w+\\{[^}]*task_queue="${stack.config.temporal.taskQueue}"`, 'm'));
    } finally {
      await receiver.close();
    }
  });
});
