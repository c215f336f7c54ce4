import { cartRequestBody, settle, WARM_UP_S, type BenchContext } from './context.js';
import { withCpu, type MeasuredCpu } from './cpu.js';
import { httpLoad, type LoadFigures } from './load.js';
import { processGroups } from './stack.js';

/** `POST /v2/public/api/cart/` on the API process: rate limits, validation, merchant lookup, ledger row, workflow start. */
export async function measureCreateCart(ctx: BenchContext, concurrency = ctx.concurrency, apiUrl = ctx.roles.apiUrl): Promise<LoadFigures & MeasuredCpu> {
  const load = {
    url: `${apiUrl}/v2/public/api/cart/`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: cartRequestBody(ctx.merchant.platformUuid),
    connections: concurrency,
  };
  await httpLoad({ ...load, durationS: WARM_UP_S });
  await settle(ctx);
  return withCpu(processGroups(ctx.stack, ctx.roles), () => httpLoad({ ...load, durationS: ctx.durationS }));
}
