import { markCustomerStarted } from '../../core/checkout/cart-ledger.js';
import { cartWorkflowId, sendCodeUpdate } from '../../workflows/cart-session/messages.js';
import type { cartSession } from '../../workflows/cart-session/workflow.js';
import { createCart, forEachConcurrently, settle, WARM_UP_S, type BenchContext } from './context.js';
import { withCpu, type MeasuredCpu } from './cpu.js';
import { httpLoad, type LoadFigures } from './load.js';
import { processGroups } from './stack.js';

const OPEN_SESSIONS = 64;

export type PageFigures = LoadFigures & MeasuredCpu;

/**
 * `GET /?token=` on the page process, spread over open sessions no customer has acted on yet: the
 * customer's first load after the merchant's redirect, which the ledger row answers alone
 * (docs/decisions/page-first-load.md).
 */
export async function measurePage(ctx: BenchContext): Promise<PageFigures> {
  return measureGets(ctx, await openSessions(ctx));
}

/**
 * The same page once the customer has asked for a code: the step comes from a query of the session's
 * workflow, as it does for every load after the first action.
 */
export async function measurePageAfterFirstAction(ctx: BenchContext): Promise<PageFigures> {
  const tokens = await openSessions(ctx);
  await forEachConcurrently(tokens, 8, async (cartId) => {
    await markCustomerStarted(ctx.db, cartId);
    const handle = ctx.temporal.client.workflow.getHandle<typeof cartSession>(cartWorkflowId(cartId));
    await handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'bench@example.com' }], updateId: `send-${cartId}-0` });
  });
  return measureGets(ctx, tokens);
}

async function openSessions(ctx: BenchContext): Promise<string[]> {
  const tokens: string[] = [];
  await forEachConcurrently(Array.from({ length: OPEN_SESSIONS }), 8, async () => {
    tokens.push((await createCart(ctx.roles.apiUrl, ctx.merchant.platformUuid)).cartId);
  });
  return tokens;
}

async function measureGets(ctx: BenchContext, tokens: string[]): Promise<PageFigures> {
  await settle(ctx);
  const first = await fetch(`${ctx.roles.webUrl}/?token=${tokens[0]}`);
  if (first.status !== 200) throw new Error(`the checkout page answered ${first.status}: ${(await first.text()).slice(0, 300)}`);
  let next = 0;
  const load = { url: ctx.roles.webUrl, path: () => `/?token=${tokens[next++ % tokens.length]}`, connections: ctx.concurrency };
  await httpLoad({ ...load, durationS: WARM_UP_S });
  await settle(ctx);
  return withCpu(processGroups(ctx.stack, ctx.roles), () => httpLoad({ ...load, durationS: ctx.durationS }));
}
