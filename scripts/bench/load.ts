import autocannon from 'autocannon';

/** What one measurement at one concurrency gives: throughput and latency of the successful calls. */
export interface LoadFigures {
  concurrency: number;
  requests: number;
  errors: number;
  durationS: number;
  perSec: number;
  p50Ms: number;
  p99Ms: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** The middle of `xs`, in any order (of an even count, the upper of the two). */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * A closed loop of `concurrency` callers, each calling `op` again as soon as the last call answered,
 * for `durationS`: how autocannon drives HTTP, for what is not HTTP (a Temporal client's calls).
 */
export async function closedLoop(concurrency: number, durationS: number, op: () => Promise<unknown>): Promise<LoadFigures> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + durationS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          await op();
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    requests: latencies.length,
    errors,
    durationS: round(elapsedS),
    perSec: round(latencies.length / elapsedS),
    p50Ms: round(quantile(latencies, 0.5)),
    p99Ms: round(quantile(latencies, 0.99)),
  };
}

export interface HttpLoad {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Changes each request's path (e.g. a different token per request). */
  path?: () => string;
  connections: number;
  durationS: number;
}

/** HTTP load with autocannon: `connections` keep-alive clients, one request in flight each. */
export async function httpLoad(load: HttpLoad): Promise<LoadFigures> {
  const result = await autocannon({
    url: load.url,
    method: load.method ?? 'GET',
    headers: load.headers,
    body: load.body,
    connections: load.connections,
    pipelining: 1,
    duration: load.durationS,
    ...(load.path
      ? {
          requests: [
            {
              setupRequest: (request) => ({ ...request, path: load.path!() }),
            },
          ],
        }
      : {}),
  });
  const ok = result['2xx'];
  return {
    concurrency: load.connections,
    requests: ok,
    errors: result.non2xx + result.errors + result.timeouts,
    durationS: round(result.duration),
    perSec: round(ok / result.duration),
    p50Ms: round(result.latency.p50),
    p99Ms: round(result.latency.p99),
  };
}
