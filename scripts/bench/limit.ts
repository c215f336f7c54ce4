import { settle, startMinimalSession, WARM_UP_S, type BenchContext } from './context.js';
import { withCpu, type MeasuredCpu } from './cpu.js';
import { closedLoop, type LoadFigures } from './load.js';
import { processGroups } from './stack.js';

/**
 * Temporal's own limit on this machine: `client.workflow.start` of the cart-session workflow with a
 * minimal valid input, straight from a client (with the codec every client runs), no HTTP, no database.
 */
export async function measureLimit(ctx: BenchContext, concurrency = ctx.concurrency): Promise<LoadFigures & MeasuredCpu> {
  const start = () =>
    startMinimalSession(ctx, { storeName: 'Bench Store', lifetimeMs: ctx.config.sessionLifetimeMs, taskQueue: ctx.config.temporal.taskQueue });
  await closedLoop(concurrency, WARM_UP_S, start);
  await settle(ctx);
  return withCpu(processGroups(ctx.stack, ctx.roles), () => closedLoop(concurrency, ctx.durationS, start));
}
