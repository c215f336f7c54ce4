import { createCart, forEachConcurrently, settle, WARM_UP_S, type BenchContext } from './context.js';
import { httpLoad, type LoadFigures } from './load.js';

const OPEN_SESSIONS = 64;

/**
 * `GET /?token=` on the page process, spread over open sessions no customer has acted on yet: the
 * customer's first load after the merchant's redirect, which the ledger row answers alone
 * (docs/decisions/page-first-load.md).
 */
export async function measurePage(ctx: BenchContext): Promise<LoadFigures> {
  const tokens: string[] = [];
  await forEachConcurrently(Array.from({ length: OPEN_SESSIONS }), 8, async () => {
    tokens.push((await createCart(ctx.roles.apiUrl, ctx.merchant.platformUuid)).cartId);
  });
  await settle(ctx);
  const first = await fetch(`${ctx.roles.webUrl}/?token=${tokens[0]}`);
  if (first.status !== 200) throw new Error(`the checkout page answered ${first.status}: ${(await first.text()).slice(0, 300)}`);
  let next = 0;
  const load = { url: ctx.roles.webUrl, path: () => `/?token=${tokens[next++ % tokens.length]}`, connections: ctx.concurrency };
  await httpLoad({ ...load, durationS: WARM_UP_S });
  await settle(ctx);
  return httpLoad({ ...load, durationS: ctx.durationS });
}
