import type { TelemetryOptions } from '@temporalio/worker';
import { Hono } from 'hono';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import type { Config } from '../core/config.js';
import type { Db } from '../core/db/client.js';
import { metricsTokenGuard } from '../core/operator-attempts.js';
import { listen, type Listening } from '../core/http-service.js';

/**
 * The worker's metrics. The Temporal SDK exports its own (task slots, poll and schedule-to-start
 * latencies, workflow and activity outcomes) through its Prometheus exporter on
 * TEMPORAL_SDK_METRICS_ADDRESS; `Runtime.install` must be given these options before the worker's
 * connection is made.
 */
export function workerTelemetryOptions(temporalSdkMetricsAddress: string): TelemetryOptions {
  return {
    metrics: {
      prometheus: { bindAddress: temporalSdkMetricsAddress, countersTotalSuffix: true, useSecondsForDurations: true },
    },
  };
}

/** An exporter bound to every interface is read back on loopback. */
const sdkMetricsUrl = (address: string) => `http://${address.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:')}/metrics`;

/**
 * `GET /metrics` on WORKER_METRICS_PORT, with `Authorization: Bearer $METRICS_TOKEN` as on the API
 * and the page (wrong tokens counted per address as there): the activities' registry (and the process's own figures), then the SDK's metrics
 * relayed from its exporter, so one scrape gets both. An SDK exporter that does not answer costs its
 * part only, said in a comment line.
 */
export function createWorkerMetricsApp(deps: { config: Config; db: Db; registry: Registry }) {
  const { config, registry } = deps;
  collectDefaultMetrics({ register: registry });
  const app = new Hono();
  app.get('/metrics', metricsTokenGuard(config, deps.db), async (c) => {
    const ours = await registry.metrics();
    let sdk: string;
    try {
      const response = await fetch(sdkMetricsUrl(config.workerMetrics.temporalSdkAddress), { signal: AbortSignal.timeout(2_000) });
      sdk = response.ok ? await response.text() : `# Temporal SDK metrics unavailable: its exporter answered ${response.status}\n`;
    } catch (err) {
      sdk = `# Temporal SDK metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`;
    }
    return c.body(`${ours}\n${sdk}`, 200, { 'Content-Type': registry.contentType });
  });
  return app;
}

export function serveWorkerMetrics(deps: { config: Config; db: Db; registry: Registry; hostname?: string }): Promise<Listening> {
  return listen(createWorkerMetricsApp(deps).fetch, { port: deps.config.workerMetrics.port, ...(deps.hostname ? { hostname: deps.hostname } : {}) });
}
