import type { Logger as SdkLogger, LogLevel, LogMetadata } from '@temporalio/worker';
import { Runtime } from '@temporalio/worker';
import { freePort } from '../../scripts/free-port.js';
import { workerTelemetryOptions } from '../../worker/metrics.js';

/**
 * The Temporal SDK's runtime is one per process and cannot be replaced, while vitest runs many test
 * files in one process (vitest.config.ts). So it is installed once, by whichever file needs it first:
 * its log lines go to the logger the file running now chose (`routeSdkLogs`), and its metrics to one
 * Prometheus exporter for the process, whose address a stack that serves worker metrics is given.
 */
let target: SdkLogger | undefined;
let metricsAddress: string | undefined;

const forwarding: SdkLogger = {
  log: (level: LogLevel, message: string, meta?: LogMetadata) => target?.log(level, message, meta),
  trace: (message, meta) => target?.trace(message, meta),
  debug: (message, meta) => target?.debug(message, meta),
  info: (message, meta) => target?.info(message, meta),
  warn: (message, meta) => target?.warn(message, meta),
  error: (message, meta) => target?.error(message, meta),
};

/** Installs the runtime if this process has none yet; answers its SDK metrics exporter's address. */
export async function ensureSdkRuntime(): Promise<{ metricsAddress: string }> {
  if (!metricsAddress) {
    const address = `127.0.0.1:${await freePort()}`;
    if (!metricsAddress) {
      Runtime.install({ shutdownSignals: [], logger: forwarding, telemetryOptions: workerTelemetryOptions(address) });
      metricsAddress = address;
    }
  }
  return { metricsAddress };
}

/** From now on the SDK logs through `logger` (the latest stack's, so its leak scans see the SDK's lines too). */
export function routeSdkLogs(logger: SdkLogger): void {
  target = logger;
}
