import { isGrpcDeadlineError, ServiceError } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import type { CreatedMerchant } from '../../core/onboarding/registration.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { newCartId } from '../../core/checkout/cart-id.js';
import { withDeadline } from '../../core/temporal/connection.js';
import { cartWorkflowId, stateQuery, type CartSessionInput } from '../../workflows/cart-session/messages.js';
import { startCartSession, type CartSessionHandle } from '../../workflows/cart-session/client.js';
import { cartSession } from '../../workflows/cart-session/workflow.js';
import type { Roles, BenchStack } from './stack.js';
import { untilMachineQuiet } from './cpu.js';

/** Everything a measurement needs: the stack's roles, and clients of its PostgreSQL and Temporal. */
export interface BenchContext {
  stack: BenchStack;
  roles: Roles;
  config: Config;
  db: Db;
  temporal: Temporal;
  merchant: CreatedMerchant;
  /** Concurrent clients where concurrency applies. */
  concurrency: number;
  /** Seconds each throughput measurement runs, after a short warm-up. */
  durationS: number;
  log: (line: string) => void;
}

export const WARM_UP_S = 2;

const BENCH_RETURN_URLS = { successUrl: 'https://bench.example/ok', failureUrl: 'https://bench.example/ko' };

/** A create-cart body of five lines, the size of an ordinary order; `merchantUrls` where the customer is sent back. */
export function cartRequestBody(platformUuid: string, merchantUrls: { successUrl: string; failureUrl: string } = BENCH_RETURN_URLS): string {
  return JSON.stringify({
    cartObject: {
      store: { platformUuid, name: 'Bench Store', url: 'https://bench.example' },
      cart: {
        currency: 'EUR',
        country: 'FR',
        items: Array.from({ length: 5 }, (_, i) => ({
          title: `Item ${i}`,
          description: 'A thing',
          price: 1000 + i,
          quantity: 1 + i,
          url: `https://bench.example/${i}`,
          image: `https://bench.example/${i}.png`,
          zeroPay: false,
        })),
        extra: { orderRef: 'bench' },
        merchantUrls,
      },
    },
  });
}

/** Creates one cart through the API, as a merchant does. */
export async function createCart(
  apiUrl: string,
  platformUuid: string,
  merchantUrls?: { successUrl: string; failureUrl: string },
): Promise<{ cartId: string; expiresOn: string }> {
  const res = await fetch(`${apiUrl}/v2/public/api/cart/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: cartRequestBody(platformUuid, merchantUrls),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`create-cart answered ${res.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: { cartId: string; expiresOn: string } }).data;
}

/** Runs `op` for each of `items`, `concurrency` at a time. */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, op: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await op(items[index]!, index);
      }
    }),
  );
}

/** How long a backlog may take to drain before the bench gives up on it. */
const SETTLE_LIMIT_MS = 300_000;

/**
 * Waits until the worker has caught up with every workflow task queued before now: a probe session is
 * started and queried, and its first task is handled after theirs. Each measurement starts on a
 * drained queue, so it is not charged for the backlog the one before left behind. The server gives up
 * on a query that no worker takes in time, as after create-cart at 128 clients: it is asked again
 * until the backlog drains or SETTLE_LIMIT_MS has passed. Then until the machine is quiet
 * (untilMachineQuiet): the servers' own work left behind counts against the one before, not the next.
 */
export async function settle(ctx: Pick<BenchContext, 'temporal' | 'config' | 'merchant'>, taskQueue = ctx.config.temporal.taskQueue): Promise<void> {
  const handle = await startMinimalSession(ctx, { storeName: 'Bench Probe', lifetimeMs: 60_000, taskQueue });
  const giveUpAt = Date.now() + SETTLE_LIMIT_MS;
  for (;;) {
    try {
      await withDeadline(ctx.temporal, giveUpAt - Date.now(), () => handle.query(stateQuery));
      break;
    } catch (err) {
      if (!(err instanceof ServiceError && isGrpcDeadlineError(err.cause)) || Date.now() >= giveUpAt) throw err;
    }
  }
  await handle.terminate('benchmark probe');
  await untilMachineQuiet();
}

export type MinimalStartOptions = { storeName: string; lifetimeMs: number; taskQueue: string };

/**
 * A cart-session workflow started straight from a client with the smallest valid input: no HTTP, no
 * ledger row, no search attributes. The raw start the limit measures, and the settle probe.
 */
export function startMinimalSession(ctx: Pick<BenchContext, 'temporal' | 'merchant' | 'config'>, options: MinimalStartOptions): Promise<CartSessionHandle> {
  const input = minimalSessionInput(ctx, options);
  return ctx.temporal.client.workflow.start(cartSession, { workflowId: cartWorkflowId(input.cartId), taskQueue: options.taskQueue, args: [input] });
}

/**
 * The same start with what create-cart's start adds for operators (search attributes, memo, summary
 * and details), through create-cart's own `startCartSession`: still no HTTP and no ledger row.
 */
export function startMinimalSessionForOperators(
  ctx: Pick<BenchContext, 'temporal' | 'merchant' | 'config'>,
  options: MinimalStartOptions,
): Promise<CartSessionHandle> {
  return startCartSession(ctx.temporal.client, {
    taskQueue: options.taskQueue,
    input: minimalSessionInput(ctx, options),
    storeName: options.storeName,
    facts: { merchantName: ctx.merchant.name, environment: ctx.merchant.environment, itemCount: 15, captureMethod: 'automatic' },
  });
}

function minimalSessionInput(ctx: Pick<BenchContext, 'merchant' | 'config'>, options: Omit<MinimalStartOptions, 'taskQueue'>): CartSessionInput {
  return {
    cartId: newCartId(),
    platformUuid: ctx.merchant.platformUuid,
    storeName: options.storeName,
    amount: 100,
    currency: 'EUR',
    expiresOn: new Date(Date.now() + options.lifetimeMs).toISOString(),
    lifetimeMs: options.lifetimeMs,
    paymentResolutionMs: ctx.config.paymentResolutionMs,
  };
}
