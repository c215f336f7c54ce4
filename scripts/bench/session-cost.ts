import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerMerchant } from '../../core/onboarding/registration.js';
import { payUpdate } from '../../workflows/cart-session/messages.js';
import { createCart, forEachConcurrently, type BenchContext } from './context.js';
import { cartReadyToPay } from './pay-to-webhook.js';
import { cpuMeter, type CpuFigures } from './cpu.js';
import { round } from './load.js';
import { startVerifyingReceiver, type VerifyingReceiver } from './receiver.js';
import { processGroups, startRoles, type Roles } from './stack.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The code before issue 41's work on a session's CPU (docs/decisions/session-cost.md; before it,
 * 8fd0fd6, the code before the lean sessions): `cost.before…` runs its roles, from this commit's tree,
 * beside ours on the same Temporal and PostgreSQL in the same run.
 */
const COST_BEFORE_COMMIT = '6b76056';

/** Sessions driven at once: a busy shop's pace, short of saturating two cores. */
const COST_CONCURRENCY = 16;

/** Session lifetime of the cost roles: short, so abandoned sessions expire within the run. */
const COST_LIFETIME_S = 20;

export interface SessionCostFigures {
  sessions: number;
  concurrency: number;
  /** CPU of every process (Temporal, PostgreSQL, worker, API) per session, from the create to the verified final webhook. */
  cpuMs: number;
  cpuMsByProcess: Record<string, number>;
  errors: number;
}

export interface CostFigures {
  code: string;
  paidSessionCpuMs: number;
  abandonedSessionCpuMs: number;
  paid: SessionCostFigures;
  abandoned: SessionCostFigures;
}

/** The roles' CPU of one or more metered phases, per session: the bench's own process (the merchant and the customer) left out. */
function perSession(phases: CpuFigures[], sessions: number): { cpuMs: number; cpuMsByProcess: Record<string, number> } {
  const byProcess: Record<string, number> = {};
  for (const phase of phases)
    for (const [name, s] of Object.entries(phase.cpuSeconds)) if (name !== 'bench') byProcess[name] = (byProcess[name] ?? 0) + (s * 1000) / sessions;
  const cpuMs = Object.values(byProcess).reduce((a, b) => a + b, 0);
  return { cpuMs: round(cpuMs, 1), cpuMsByProcess: Object.fromEntries(Object.entries(byProcess).map(([k, v]) => [k, round(v, 1)])) };
}

/**
 * Until no workflow of the task queue runs, so the next measurement is not charged for this one's.
 * Not metered: a paid cart's delivery workflow idles a minute after order_created (a refund may
 * follow), and a minute of idle servers would outweigh the session itself.
 */
async function untilClosed(ctx: BenchContext, taskQueue: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await ctx.temporal.client.workflow.count(`TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`)).count > 0) {
    if (Date.now() > deadline) throw new Error(`workflows of ${taskQueue} still running after 120 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A paid session as the page drives it (test/support/cart-session-driver.ts): created through the API,
 * a code sent and verified, the card vaulted, Pay; metered from the create to the verified
 * `order_created` and every workflow of the session closed.
 */
async function measurePaid(ctx: BenchContext, roles: Roles, receiver: VerifyingReceiver, platformUuid: string, sessions: number, concurrency: number) {
  let errors = 0;
  const meter = cpuMeter(processGroups(ctx.stack, roles));
  await forEachConcurrently(Array.from({ length: sessions }), concurrency, async () => {
    const { cartId, handle, card } = await cartReadyToPay(ctx, roles.apiUrl, platformUuid);
    const created = receiver.waitFor('order_created', cartId);
    const state = await handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${cartId}` });
    if (state.status !== 'paid') errors++;
    else await created;
  });
  return { sessions, concurrency, errors, ...perSession([meter.stop()], sessions) };
}

/**
 * Sessions left to expire: the creates metered, then the drain from the first expiry to the last
 * verified `order_abandoned` and every workflow closed; the idle wait between them is not.
 */
async function measureAbandoned(ctx: BenchContext, roles: Roles, receiver: VerifyingReceiver, platformUuid: string, sessions: number, concurrency: number) {
  const carts: Array<{ cartId: string; expiresAt: number }> = [];
  const createMeter = cpuMeter(processGroups(ctx.stack, roles));
  await forEachConcurrently(Array.from({ length: sessions }), concurrency, async () => {
    const { cartId, expiresOn } = await createCart(roles.apiUrl, platformUuid);
    carts.push({ cartId, expiresAt: Date.parse(expiresOn) });
  });
  const creates = createMeter.stop();
  const firstExpiry = Math.min(...carts.map((c) => c.expiresAt));
  await new Promise((r) => setTimeout(r, Math.max(0, firstExpiry - Date.now())));
  const drainMeter = cpuMeter(processGroups(ctx.stack, roles));
  const abandoned = await Promise.allSettled(
    carts.map(({ cartId }) => Promise.race([receiver.waitFor('order_abandoned', cartId), new Promise((_, reject) => setTimeout(reject, 120_000))])),
  );
  const drain = drainMeter.stop();
  const errors = abandoned.filter((r) => r.status === 'rejected').length;
  return { sessions, concurrency, errors, ...perSession([creates, drain], sessions) };
}

/** A copy of `commit`'s tree that runs on this checkout's node_modules; removed by the returned function. */
export function checkoutTree(root: string, commit: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-before-'));
  execFileSync('bash', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'archive', root, commit, dir]);
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * What a paid and an abandoned session cost in CPU, all processes summed, on roles of their own (run
 * from `root`: this checkout, or the tree of the code before) and a task queue of their own.
 */
export async function measureSessionCost(
  ctx: BenchContext,
  options: { code: string; root?: string; paidSessions: number; abandonedSessions: number; concurrency: number },
): Promise<CostFigures> {
  const taskQueue = `bench-cost-${options.code.replace(/[^a-z0-9]/gi, '')}`;
  const receiver = await startVerifyingReceiver();
  const roles = await startRoles(ctx.stack, { taskQueue, web: false, root: options.root, env: { SESSION_LIFETIME_SECONDS: String(COST_LIFETIME_S) } });
  try {
    const merchant = await registerMerchant(
      ctx.db,
      ctx.config.keyring,
      { name: `Bench Cost ${options.code}`, environment: 'sandbox', webhookUrl: receiver.url },
      ctx.config.webhooks,
    );
    receiver.useSecret(merchant.webhookSecret);
    // Warm-up: a fresh worker's first sessions compile and cache what every later one reuses.
    await measurePaid(ctx, roles, receiver, merchant.platformUuid, options.concurrency, options.concurrency);
    const abandoned = await measureAbandoned(ctx, roles, receiver, merchant.platformUuid, options.abandonedSessions, options.concurrency);
    const paid = await measurePaid(ctx, roles, receiver, merchant.platformUuid, options.paidSessions, options.concurrency);
    await untilClosed(ctx, taskQueue);
    return { code: options.code, paidSessionCpuMs: paid.cpuMs, abandonedSessionCpuMs: abandoned.cpuMs, paid, abandoned };
  } finally {
    await roles.stop();
    await receiver.close();
  }
}

export interface CostComparison {
  paidSessionCpuMs: number;
  abandonedSessionCpuMs: number;
  beforePaidSessionCpuMs: number;
  beforeAbandonedSessionCpuMs: number;
  /** Ours over before's: the target is ≤ 0.5. */
  paidRatio: number;
  abandonedRatio: number;
  beforeCommit: string;
  now: CostFigures;
  before: CostFigures;
}

/**
 * This checkout's sessions and those of COST_BEFORE_COMMIT, measured one after the other in this run:
 * before, ours, before, ours…, each figure the lowest of its rounds (what a quiet machine gives).
 */
export async function measureCost(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number }): Promise<CostComparison> {
  const tree = checkoutTree(ROOT, COST_BEFORE_COMMIT);
  const rounds: Array<{ before: CostFigures; now: CostFigures }> = [];
  try {
    for (let pass = 1; pass <= options.rounds; pass++) {
      const before = await measureSessionCost(ctx, { code: `before-${pass}`, root: tree.dir, ...options, concurrency: COST_CONCURRENCY });
      ctx.log(`  before (${COST_BEFORE_COMMIT}), round ${pass}: paid ${before.paidSessionCpuMs} ms, abandoned ${before.abandonedSessionCpuMs} ms`);
      const now = await measureSessionCost(ctx, { code: `now-${pass}`, ...options, concurrency: COST_CONCURRENCY });
      ctx.log(`  ours, round ${pass}: paid ${now.paidSessionCpuMs} ms, abandoned ${now.abandonedSessionCpuMs} ms`);
      rounds.push({ before, now });
    }
  } finally {
    tree.remove();
  }
  const lowest = (pick: (r: (typeof rounds)[number]) => CostFigures, key: 'paidSessionCpuMs' | 'abandonedSessionCpuMs') =>
    rounds.map(pick).reduce((a, b) => (b[key] < a[key] ? b : a));
  const now = { ...lowest((r) => r.now, 'paidSessionCpuMs') };
  const before = { ...lowest((r) => r.before, 'paidSessionCpuMs') };
  const nowAbandoned = lowest((r) => r.now, 'abandonedSessionCpuMs');
  const beforeAbandoned = lowest((r) => r.before, 'abandonedSessionCpuMs');
  return {
    paidSessionCpuMs: now.paidSessionCpuMs,
    abandonedSessionCpuMs: nowAbandoned.abandonedSessionCpuMs,
    beforePaidSessionCpuMs: before.paidSessionCpuMs,
    beforeAbandonedSessionCpuMs: beforeAbandoned.abandonedSessionCpuMs,
    paidRatio: round(now.paidSessionCpuMs / before.paidSessionCpuMs, 2),
    abandonedRatio: round(nowAbandoned.abandonedSessionCpuMs / beforeAbandoned.abandonedSessionCpuMs, 2),
    beforeCommit: COST_BEFORE_COMMIT,
    now: { ...now, abandonedSessionCpuMs: nowAbandoned.abandonedSessionCpuMs, abandoned: nowAbandoned.abandoned },
    before: { ...before, abandonedSessionCpuMs: beforeAbandoned.abandonedSessionCpuMs, abandoned: beforeAbandoned.abandoned },
  };
}
