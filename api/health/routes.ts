import { Hono } from 'hono';
import type { Db } from '../../core/db/client.js';
import { withDeadline, type Temporal } from '../../core/temporal/connection.js';

const PROBE_TIMEOUT_MS = 2_000;

async function probe(check: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS).unref())]);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

/** `/healthz`: the process answers. `/readyz`: and its dependencies do too, so it can take traffic. */
export function healthRoutes(deps: { db: Db; temporal: Temporal }) {
  return new Hono()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) => {
      const [postgres, temporal] = await Promise.all([
        probe(() => deps.db`select 1`),
        probe(() => withDeadline(deps.temporal, PROBE_TIMEOUT_MS, () => deps.temporal.connection.healthService.check({}))),
      ]);
      const ready = postgres === 'ok' && temporal === 'ok';
      return c.json({ status: ready ? 'ready' : 'unavailable', checks: { postgres, temporal } }, ready ? 200 : 503);
    });
}
