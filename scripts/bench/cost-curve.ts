import { settle, type BenchContext } from './context.js';
import { measureCreateCart } from './create-cart.js';
import { measureLimit } from './limit.js';
import type { LoadFigures } from './load.js';

export const CURVE_CONCURRENCY = [1, 8, 32, 128] as const;

export interface CurvePoint {
  concurrency: number;
  createCart: LoadFigures;
  limit: LoadFigures;
}

/**
 * Create-cart, and the raw start beside it, at each concurrency. The points at the run's own
 * concurrency are the ones already measured, not measured twice.
 */
export async function measureCostCurve(ctx: BenchContext, measured: { createCart?: LoadFigures; limit?: LoadFigures }): Promise<CurvePoint[]> {
  const points: CurvePoint[] = [];
  for (const concurrency of CURVE_CONCURRENCY) {
    const reuse = concurrency === ctx.concurrency;
    ctx.log(`  cost curve at ${concurrency} concurrent clients`);
    await settle(ctx);
    const createCart = reuse && measured.createCart ? measured.createCart : await measureCreateCart(ctx, concurrency);
    await settle(ctx);
    const limit = reuse && measured.limit ? measured.limit : await measureLimit(ctx, concurrency);
    points.push({ concurrency, createCart, limit });
  }
  return points;
}
