import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { insertCart } from '../../core/checkout/cart-ledger.js';
import { newCartId } from '../../core/checkout/cart-id.js';
import { createDb } from '../../core/db/client.js';
import { createLogger } from '../../core/logger.js';
import { createActivityMetrics } from '../../activities/metrics.js';
import { createLedgerActivities } from '../../activities/cart-session/ledger.js';
import { createDeliveryAttempt } from '../../activities/webhook-delivery/index.js';
import { forEachConcurrently, type BenchContext } from './context.js';
import { cpuMeter } from './cpu.js';
import { round } from './load.js';
import { costRatio, measureInRounds } from './rounds.js';
import { registerReceivingMerchant, startVerifyingReceiver } from './receiver.js';

const STEP_CONCURRENCY = 16;

type StepCode = { createLedgerActivities: typeof createLedgerActivities; createDeliveryAttempt: typeof createDeliveryAttempt };

/** Another checkout's step code: its own modules, loaded from its directory, so its step and this one's run side by side. */
async function stepOf(root: string): Promise<StepCode> {
  const load = <T>(file: string) => import(pathToFileURL(path.join(root, file)).href) as Promise<T>;
  const ledger = await load<{ createLedgerActivities: typeof createLedgerActivities }>('activities/cart-session/ledger.ts');
  const delivery = await load<{ createDeliveryAttempt: typeof createDeliveryAttempt }>('activities/webhook-delivery/index.ts');
  return { createLedgerActivities: ledger.createLedgerActivities, createDeliveryAttempt: delivery.createDeliveryAttempt };
}

/**
 * `--only step-cost --before <dir>`: what one session step costs, for another checkout of the project
 * (a worktree of the commit before a change) and for this one, in turn in each round: the step that
 * ends an abandoned session (activities/cart-session/ledger.ts recordSessionStep: the status, the
 * vault emptied, order_abandoned recorded and sent to a receiver), called outside Temporal so that
 * nothing else is measured. This process's CPU is the step's caller's, as the worker's is, plus the
 * receiver's share, the same for both; PostgreSQL's is all of its processes'. Each ratio, this
 * checkout's over the other's, is read in its median round (./rounds.ts).
 */
export async function measureStepCost(ctx: BenchContext, options: { steps: number; rounds: number; before: string }) {
  const receiver = await startVerifyingReceiver();
  const merchant = await registerReceivingMerchant(receiver, ctx, 'Bench Step');
  const checkouts: Record<'before' | 'now', StepCode> = { before: await stepOf(options.before), now: { createLedgerActivities, createDeliveryAttempt } };
  const rounds = await measureInRounds(['before', 'now'] as const, options.rounds, async (name, pass) => {
    const measured = await measureSteps(ctx, checkouts[name], merchant.platformUuid, options.steps);
    ctx.log(`  ${name}, round ${pass}: caller ${measured.caller} ms, PostgreSQL ${measured.postgres} ms per step`);
    return measured;
  }).finally(() => receiver.close());
  const nowOverBefore = (of: 'caller' | 'postgres') =>
    costRatio(
      rounds,
      (r) => r.now[of],
      (r) => r.before[of],
    );
  return { steps: options.steps, concurrency: STEP_CONCURRENCY, caller: nowOverBefore('caller'), postgres: nowOverBefore('postgres') };
}

async function measureSteps(ctx: BenchContext, code: StepCode, platformUuid: string, steps: number) {
  const { config } = ctx;
  const db = createDb(config.databaseUrl);
  // The worker logs each delivery at info; written nowhere, so the terminal costs nothing.
  const logger = createLogger({ level: 'info', name: 'bench-step', destination: pino.destination('/dev/null') });
  const attemptDelivery = code.createDeliveryAttempt({ config, db, logger, metrics: createActivityMetrics() });
  const ledger = code.createLedgerActivities({
    db,
    keyring: config.keyring,
    checkoutBaseUrl: config.checkoutBaseUrl,
    attemptDelivery,
    requestDelivery: () => Promise.reject(new Error('every bench step is delivered at its first attempt')),
  });
  try {
    const cartIds = Array.from({ length: steps }, () => newCartId());
    for (const cartId of cartIds) await insertCart(db, benchCart(cartId, platformUuid));
    const meter = cpuMeter({ postgres: { pid: ctx.stack.postgresPid, withChildren: true } });
    await forEachConcurrently(cartIds, STEP_CONCURRENCY, (cartId) =>
      ledger.recordSessionStep({
        status: { cartId, status: 'abandoned' },
        event: { cartId, event: 'order_abandoned', status: 'abandoned' },
        discardCards: true,
      }),
    );
    const { cpuSeconds } = meter.stop();
    const per = (seconds = 0) => round((seconds * 1000) / steps, 2);
    return { caller: per(cpuSeconds.bench), postgres: per(cpuSeconds.postgres) };
  } finally {
    await db.end();
  }
}

function benchCart(cartId: string, platformUuid: string): Parameters<typeof insertCart>[1] {
  const createdAt = new Date();
  return {
    cartId,
    platformUuid,
    environment: 'sandbox',
    merchantName: 'Bench Step',
    currency: 'EUR',
    amount: 1000,
    store: { platformUuid, name: 'Bench Step', url: 'https://bench.example' },
    cart: {
      currency: 'EUR',
      country: 'FR',
      items: [
        {
          title: 'Item',
          description: 'A thing',
          price: 1000,
          quantity: 1,
          url: 'https://bench.example/1',
          image: 'https://bench.example/1.png',
          zeroPay: false,
        },
      ],
      extra: {},
      merchantUrls: { successUrl: 'https://bench.example/ok', failureUrl: 'https://bench.example/ko' },
    },
    expiresOn: new Date(createdAt.getTime() + 60_000).toISOString(),
    createdAt,
    createdWith: 'public',
  };
}
