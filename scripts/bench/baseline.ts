import { freePort } from '../free-port.js';
import type { BenchContext } from './context.js';
import { measureCreateCart } from './create-cart.js';
import type { LoadFigures } from './load.js';

/**
 * The non-durable baseline: the same request on scripts/bench/baseline-app.ts, its own process like
 * the API, validated and written to PostgreSQL with nothing started in Temporal.
 */
export async function measureBaseline(ctx: BenchContext): Promise<LoadFigures> {
  const port = await freePort();
  const baseline = await ctx.stack.startRole(
    'baseline',
    'scripts/bench/baseline-app.ts',
    { ...ctx.roles.env, API_PORT: String(port) },
    { http: `http://127.0.0.1:${port}/healthz` },
  );
  try {
    return await measureCreateCart(ctx, ctx.concurrency, `http://127.0.0.1:${port}`);
  } finally {
    await baseline.stop();
  }
}
