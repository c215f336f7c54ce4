import type { CartSessionHandle } from '../../workflows/cart-session/client.js';
import { settle, startMinimalSession, WARM_UP_S, type BenchContext, type MinimalStartOptions } from './context.js';
import { withCpu, type MeasuredCpu } from './cpu.js';
import { closedLoop, type LoadFigures } from './load.js';
import { processGroups } from './stack.js';

type Starter = (ctx: BenchContext, options: MinimalStartOptions) => Promise<CartSessionHandle>;

/**
 * Temporal's own limit on this machine: `client.workflow.start` of the cart-session workflow with a
 * minimal valid input, straight from a client (with the codec every client runs), no HTTP, no database.
 */
export function measureLimit(ctx: BenchContext, concurrency = ctx.concurrency): Promise<LoadFigures & MeasuredCpu> {
  return measureStarts(ctx, startMinimalSession, { concurrency });
}

/**
 * Starts by `starter` in a closed loop from the bench's own client, after a warm-up and a settle, under
 * the CPU meter. With `drain`, the meter runs on until the machine is quiet again, so what Temporal does
 * after answering a start (its visibility record, the first workflow task) counts too.
 */
export async function measureStarts(
  ctx: BenchContext,
  starter: Starter,
  { concurrency = ctx.concurrency, drain = false }: { concurrency?: number; drain?: boolean } = {},
): Promise<LoadFigures & MeasuredCpu> {
  const start = () => starter(ctx, { storeName: 'Bench Store', lifetimeMs: ctx.config.sessionLifetimeMs, taskQueue: ctx.config.temporal.taskQueue });
  await closedLoop(concurrency, WARM_UP_S, start);
  await settle(ctx);
  return withCpu(processGroups(ctx.stack, ctx.roles), async () => {
    const figures = await closedLoop(concurrency, ctx.durationS, start);
    if (drain) await settle(ctx);
    return figures;
  });
}
