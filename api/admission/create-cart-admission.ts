import { createMiddleware } from 'hono/factory';
import { overloaded } from '../../application/errors.js';
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/logger.js';
import { admissionGate } from './admission-gate.js';
import { eventLoopLagMs } from './event-loop-lag.js';

export interface CreateCartAdmissionDeps {
  config: Pick<Config, 'admission' | 'environment'>;
  logger: Logger;
  /** Counts each create-cart answered 503 OVERLOADED. */
  shed: { inc: (labels: { environment: string }) => void };
  /** The latest lag figure, in ms; the process's event-loop delay (./event-loop-lag.ts) unless given. */
  lagMs?: () => number;
  now?: () => number;
}

/**
 * Create-cart's guard: while the process is saturated, a new session is refused with 503 OVERLOADED and
 * Retry-After before anything is read or counted, so the customers already on the page get the cores.
 * Only create-cart runs it; the page's form posts never do. With ADMISSION_SHEDDING=off it admits all.
 */
export function createCartAdmission(deps: CreateCartAdmissionDeps) {
  const { admission, environment } = deps.config;
  if (!admission.shedding) return createMiddleware(async (_c, next) => next());
  const lagMs = deps.lagMs ?? eventLoopLagMs();
  const now = deps.now ?? Date.now;
  const gate = admissionGate(admission);
  let shedding = false;
  return createMiddleware(async (c, next) => {
    const lag = lagMs();
    const admitted = gate.admits(lag, now());
    if (admitted === shedding) {
      shedding = !admitted;
      // The turns only, not each request: the counter says how many were shed.
      deps.logger.warn(
        { eventLoopLagP99Ms: Math.round(lag), shedAboveLagMs: admission.shedAboveLagMs, admitBelowLagMs: admission.admitBelowLagMs },
        shedding ? 'create-cart shedding began: the event loop runs late' : 'create-cart shedding ended',
      );
    }
    if (admitted) return next();
    deps.shed.inc({ environment });
    throw overloaded(admission.retryAfterSeconds);
  });
}
