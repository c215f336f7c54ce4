import { createCart, forEachConcurrently, type BenchContext } from './context.js';
import { cpuMeter, cpuMsPer, type CpuFigures } from './cpu.js';
import { quantile, round } from './load.js';
import { registerReceivingMerchant, startVerifyingReceiver } from './receiver.js';
import { processGroups, rssSampler, startRoles } from './stack.js';

export interface ScaleFigures {
  sessions: number;
  /** Sessions still open when the last one was created. */
  openAtOnce: number;
  lifetimeS: number;
  createdInS: number;
  workerRssMiB: number;
  apiRssMiB: number;
  temporalRssMiB: number | null;
  /** The longest time from a session's expiry to its verified `order_abandoned`. */
  allDeliveredWithinS: number | null;
  deliveryLagP50S: number | null;
  deliveryLagP99S: number | null;
  /** From the last expiry until every `order_abandoned` was verified. */
  drainedAfterLastExpiryS: number | null;
  /** Sessions whose `order_abandoned` was not verified within GIVE_UP_AFTER_LAST_EXPIRY_S of the last expiry. */
  lost: number;
  duplicatedAtReceiver: number;
  invalidSignatures: number;
  /** Sessions expiring per second, first to last expiry: the rate the drain must keep up with. */
  expiryRatePerS: number;
  /** order_abandoned verified per second, first expiry to last delivery. */
  drainRatePerS: number;
  /** What the drain (first expiry until all delivered or given up) cost each process, in all and per session. */
  drainCpu: CpuFigures;
  drainCpuMsPerSession: Record<string, number>;
}

/**
 * How long after the last expiry a missing `order_abandoned` counts as lost: long enough that a drain
 * slower than the target is measured to its end, not cut off and miscounted as loss.
 */
export const GIVE_UP_AFTER_LAST_EXPIRY_S = 900;

/**
 * `sessions` carts open at once on a fresh worker and API of their own (their own task queue), with
 * the lifetime shortened so every one expires during the run; then every `order_abandoned` is awaited
 * at a verifying receiver, while the roles' and Temporal's memory is sampled.
 */
export async function measureScale(ctx: BenchContext, sessions: number, lifetimeS: number): Promise<ScaleFigures> {
  const receiver = await startVerifyingReceiver();
  const roles = await startRoles(ctx.stack, { taskQueue: 'bench-scale', web: false, env: { SESSION_LIFETIME_SECONDS: String(lifetimeS) } });
  const sampler = rssSampler({ worker: roles.worker.pid, api: roles.api.pid, temporal: ctx.stack.temporalPid });
  try {
    const merchant = await registerReceivingMerchant(receiver, ctx, 'Bench Scale Store');
    const carts: Array<{ cartId: string; expiresAt: number }> = [];
    const started = performance.now();
    let lastReport = started;
    await forEachConcurrently(Array.from({ length: sessions }), ctx.concurrency, async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          const { cartId, expiresOn } = await createCart(roles.apiUrl, merchant.platformUuid);
          carts.push({ cartId, expiresAt: Date.parse(expiresOn) });
          break;
        } catch (err) {
          if (attempt === 3) throw err;
        }
      }
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        ctx.log(`  ${carts.length} of ${sessions} sessions open`);
      }
    });
    const createdAt = Date.now();
    const createdInS = (performance.now() - started) / 1000;
    const openAtOnce = carts.filter((c) => c.expiresAt > createdAt).length;
    const lastExpiry = Math.max(...carts.map((c) => c.expiresAt));
    ctx.log(
      `  ${sessions} sessions created in ${round(createdInS)} s; ${openAtOnce} open at once; the last expires in ${round((lastExpiry - Date.now()) / 1000)} s`,
    );

    const firstExpiry = Math.min(...carts.map((c) => c.expiresAt));
    await new Promise((r) => setTimeout(r, Math.max(0, firstExpiry - Date.now())));
    const meter = cpuMeter(processGroups(ctx.stack, roles));
    const missing = () => carts.filter((c) => !receiver.delivered('order_abandoned', c.cartId)).length;
    while (missing() > 0 && Date.now() < lastExpiry + GIVE_UP_AFTER_LAST_EXPIRY_S * 1000) {
      await new Promise((r) => setTimeout(r, 1_000));
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        ctx.log(`  ${sessions - missing()} of ${sessions} order_abandoned verified`);
      }
    }
    const drainCpu = meter.stop();
    // Late duplicates, if any, arrive within a retry or two.
    await new Promise((r) => setTimeout(r, 5_000));

    const lags = carts
      .map((c) => receiver.delivered('order_abandoned', c.cartId))
      .flatMap((d, i) => (d ? [(d.wallAt - carts[i]!.expiresAt) / 1000] : []))
      .sort((a, b) => a - b);
    const lost = sessions - lags.length;
    const lastDelivery = Math.max(...carts.map((c) => receiver.delivered('order_abandoned', c.cartId)?.wallAt ?? 0));
    const peaks = sampler.stop();
    return {
      sessions,
      openAtOnce,
      lifetimeS,
      createdInS: round(createdInS),
      workerRssMiB: round(peaks.worker ?? NaN, 0),
      apiRssMiB: round(peaks.api ?? NaN, 0),
      temporalRssMiB: peaks.temporal === undefined ? null : round(peaks.temporal, 0),
      allDeliveredWithinS: lost === 0 ? round(lags.at(-1)!) : null,
      deliveryLagP50S: lags.length ? round(quantile(lags, 0.5)) : null,
      deliveryLagP99S: lags.length ? round(quantile(lags, 0.99)) : null,
      drainedAfterLastExpiryS: lost === 0 ? round((lastDelivery - lastExpiry) / 1000) : null,
      lost,
      duplicatedAtReceiver: receiver.counts.duplicates,
      invalidSignatures: receiver.counts.invalid,
      expiryRatePerS: round(sessions / Math.max(1, (lastExpiry - firstExpiry) / 1000)),
      drainRatePerS: round(lags.length / Math.max(1, (lastDelivery - firstExpiry) / 1000)),
      drainCpu,
      drainCpuMsPerSession: cpuMsPer(drainCpu, lags.length || 1),
    };
  } finally {
    sampler.stop();
    await roles.stop();
    await receiver.close();
  }
}
