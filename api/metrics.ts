import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { routePath } from 'hono/route';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { createDeliveryMetrics } from '../core/webhooks/delivery-metrics.js';

/**
 * Prometheus metrics of one API instance, in a registry of its own so that several apps in one
 * process (tests) do not collide: request latency by route, carts created and shed, and the webhook attempts of replays sent at once.
 */
export function createApiMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'API request latency, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const cartsCreated = new Counter({
    name: 'checkout_carts_created_total',
    help: 'Cart sessions created (idempotent replays not counted).',
    labelNames: ['environment'] as const,
    registers: [registry],
  });

  const cartsShed = new Counter({
    name: 'checkout_carts_shed_total',
    help: 'Create-cart requests answered 503 OVERLOADED: the API process was saturated and served the sessions already open first (docs/runbook.md).',
    labelNames: ['environment'] as const,
    registers: [registry],
  });

  const processorEvents = new Counter({
    name: 'checkout_processor_events_total',
    help: 'The payment processor’s events at POST /processor-events/…, by outcome: handled, duplicate, ignored, or rejected (unsigned, forged or stale: never acted on).',
    labelNames: ['processor', 'outcome'] as const,
    registers: [registry],
  });

  // The route pattern, never the raw path: ids in paths would make a series per request.
  const routeLabel = (c: Context) => {
    const route = routePath(c, -1);
    return route && route !== '*' && route !== '/*' ? route : 'unmatched';
  };

  const middleware = createMiddleware(async (c, next) => {
    const stop = requestDuration.startTimer();
    try {
      await next();
    } finally {
      stop({ method: c.req.method, route: routeLabel(c), status: String(c.res.status) });
    }
  });

  // Replays sent at once make their attempt here (core/webhooks/replay.ts).
  const delivery = createDeliveryMetrics(registry);

  return { registry, cartsCreated, cartsShed, processorEvents, delivery, middleware };
}

export type ApiMetrics = ReturnType<typeof createApiMetrics>;
