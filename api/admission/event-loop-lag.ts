import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How long each figure is measured over: long enough for a p99 of ~100 samples, short enough to react within a second or two. */
const WINDOW_MS = 1000;
/** The sampling timer's period, Node's default. */
const RESOLUTION_MS = 10;

let shared: (() => number) | undefined;

/**
 * The event loop's delay in this process, in ms: the p99 of the last complete second. Anything that
 * keeps the loop from running shows here: the process's own requests, its garbage collection, and
 * cores the worker and Temporal keep busy on the same machine. One monitor per process, whatever
 * number of apps it serves (a test process builds many), since the delay is the process's.
 */
export function eventLoopLagMs(): () => number {
  if (shared) return shared;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let latest = 0;
  const timer = setInterval(() => {
    latest = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    histogram.reset();
  }, WINDOW_MS);
  timer.unref();
  shared = () => latest;
  return shared;
}
