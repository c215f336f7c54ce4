import { newCartId } from '../../core/checkout/cart-id.js';
import { cartWorkflowId, type CartSessionInput } from '../../workflows/cart-session/messages.js';
import { cartSession } from '../../workflows/cart-session/workflow.js';
import { settle, WARM_UP_S, type BenchContext } from './context.js';
import { withCpu, type MeasuredCpu } from './cpu.js';
import { closedLoop, type LoadFigures } from './load.js';
import { processGroups } from './stack.js';

/**
 * Temporal's own limit on this machine: `client.workflow.start` of the cart-session workflow with a
 * minimal valid input, straight from a client (with the codec every client runs), no HTTP, no database.
 */
export async function measureLimit(ctx: BenchContext, concurrency = ctx.concurrency): Promise<LoadFigures & MeasuredCpu> {
  const start = () => {
    const cartId = newCartId();
    const input: CartSessionInput = {
      cartId,
      platformUuid: ctx.merchant.platformUuid,
      storeName: 'Bench Store',
      amount: 100,
      currency: 'EUR',
      expiresOn: new Date(Date.now() + ctx.config.sessionLifetimeMs).toISOString(),
      lifetimeMs: ctx.config.sessionLifetimeMs,
    };
    return ctx.temporal.client.workflow.start(cartSession, { workflowId: cartWorkflowId(cartId), taskQueue: ctx.config.temporal.taskQueue, args: [input] });
  };
  await closedLoop(concurrency, WARM_UP_S, start);
  await settle(ctx);
  return withCpu(processGroups(ctx.stack, ctx.roles), () => closedLoop(concurrency, ctx.durationS, start));
}
