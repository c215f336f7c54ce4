import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { payUpdate } from '../../workflows/cart-session/messages.js';
import { createCart, forEachConcurrently, type BenchContext } from './context.js';
import { cartReadyToPay } from './pay-to-webhook.js';
import { cpuMeter, type CpuFigures } from './cpu.js';
import { round } from './load.js';
import { registerReceivingMerchant, startVerifyingReceiver, type VerifyingReceiver } from './receiver.js';
import { floorAbandonedSession, floorPaidSession, floorPay, floorSendCode, floorVerify } from './floor/workflows.js';
import { processGroups, startRoles, type Roles } from './stack.js';

/** Sessions driven at once: a busy shop's pace, short of saturating two cores. */
export const COST_CONCURRENCY = 16;

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

/**
 * What a paid and an abandoned session cost in CPU, all processes summed, on roles of their own and a
 * task queue of their own.
 */
export async function measureSessionCost(
  ctx: BenchContext,
  /** `env`: settings the roles differ in from the stack's (scripts/bench/eager-start.ts); `root`: another checkout whose code the roles run (measureCostAgainst). */
  options: { code: string; paidSessions: number; abandonedSessions: number; concurrency: number; env?: Record<string, string>; root?: string },
): Promise<CostFigures> {
  const taskQueue = `bench-cost-${options.code.replace(/[^a-z0-9]/gi, '')}`;
  const receiver = await startVerifyingReceiver();
  const roles = await startRoles(ctx.stack, {
    taskQueue,
    web: false,
    env: { SESSION_LIFETIME_SECONDS: String(COST_LIFETIME_S), ...options.env },
    ...(options.root ? { root: options.root } : {}),
  });
  try {
    const merchant = await registerReceivingMerchant(receiver, ctx, `Bench Cost ${options.code}`);
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

/**
 * The floor's sessions (scripts/bench/floor/workflows.ts), driven the way ours are: the same numbers,
 * the same concurrency and lifetime, a worker process of the same settings on the same servers, metered
 * the same way (the bench's own process, the client here, left out).
 */
export async function measureFloorCost(
  ctx: BenchContext,
  /** `sandbox`: the floor worker's workflow sandbox, the SDK's defaults or set as ours (scripts/bench/floor/worker.ts). */
  options: { code: string; paidSessions: number; abandonedSessions: number; concurrency: number; sandbox?: FloorSandbox },
): Promise<CostFigures> {
  const taskQueue = `bench-floor-${options.code.replace(/[^a-z0-9]/gi, '')}`;
  const worker = await ctx.stack.startRole(
    'floor-worker',
    'scripts/bench/floor/worker.ts',
    { TEMPORAL_TASK_QUEUE: taskQueue, FLOOR_SANDBOX: options.sandbox ?? 'sdk' },
    { taskQueue },
  );
  // A plain client: the default data converter, no codec, no interceptor.
  const client = new Client({ connection: ctx.temporal.connection, namespace: ctx.config.temporal.namespace });
  const groups = { temporal: { pid: ctx.stack.temporalPid }, postgres: { pid: ctx.stack.postgresPid, withChildren: true }, worker: { pid: worker.pid } };
  const id = () => `floor-${randomUUID()}`;
  const paidSessions = async (sessions: number) => {
    const meter = cpuMeter(groups);
    await forEachConcurrently(Array.from({ length: sessions }), options.concurrency, async () => {
      const handle = await client.workflow.start(floorPaidSession, { taskQueue, workflowId: id() });
      await handle.executeUpdate(floorSendCode);
      await handle.executeUpdate(floorVerify);
      await handle.executeUpdate(floorPay);
      await handle.result();
    });
    return { sessions, concurrency: options.concurrency, errors: 0, ...perSession([meter.stop()], sessions) };
  };
  const abandonedSessions = async (sessions: number) => {
    const createMeter = cpuMeter(groups);
    const handles = [];
    const started = Date.now();
    for (let i = 0; i < sessions; i += options.concurrency)
      handles.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(options.concurrency, sessions - i) }, () =>
            client.workflow.start(floorAbandonedSession, { taskQueue, workflowId: id(), args: [COST_LIFETIME_S] }),
          ),
        )),
      );
    const creates = createMeter.stop();
    await new Promise((r) => setTimeout(r, Math.max(0, started + COST_LIFETIME_S * 1000 - Date.now())));
    const drainMeter = cpuMeter(groups);
    await Promise.all(handles.map((h) => h.result()));
    return { sessions, concurrency: options.concurrency, errors: 0, ...perSession([creates, drainMeter.stop()], sessions) };
  };
  try {
    await paidSessions(options.concurrency);
    const abandoned = await abandonedSessions(options.abandonedSessions);
    const paid = await paidSessions(options.paidSessions);
    return { code: options.code, paidSessionCpuMs: paid.cpuMs, abandonedSessionCpuMs: abandoned.cpuMs, paid, abandoned };
  } finally {
    await worker.stop();
  }
}

export type FloorSandbox = 'sdk' | 'ours';

export interface CostComparison {
  paidSessionCpuMs: number;
  abandonedSessionCpuMs: number;
  /** The least a session needs of Temporal (scripts/bench/floor/), measured beside ours in the same run. */
  floorPaidSessionCpuMs: number;
  floorAbandonedSessionCpuMs: number;
  /** Ours over the floor in the median round: the target is ≤ 1.5. */
  paidOverFloor: number;
  abandonedOverFloor: number;
  now: CostFigures;
  floor: CostFigures;
  /** Every round, in the order run: which side went first, both sides' CPU per session and their ratios. */
  rounds: CostRound[];
}

export interface CostRound {
  first: 'floor' | 'ours';
  paid: { oursCpuMs: number; floorCpuMs: number; oursOverFloor: number };
  abandoned: { oursCpuMs: number; floorCpuMs: number; oursOverFloor: number };
}

/**
 * Our sessions and the floor's, measured in pairs in this run, which side goes first alternating. A
 * pair shares the machine's moment, so each ratio is the round whose own ratio is the median (of an
 * even count, the higher of the two middle ones, so an even count never flatters us), and its CPU
 * figures are that round's. The lowest of each side's rounds, taken apart, made the ratio follow
 * whichever side had one quiet round: 1.32–1.82 for the same code in three runs of one day
 * (reports/bench-notes.md, "The cost's ratio from paired rounds").
 */
export async function measureCost(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number }): Promise<CostComparison> {
  const pairs: Array<{ floor: CostFigures; now: CostFigures; round: CostRound }> = [];
  for (let pass = 1; pass <= options.rounds; pass++) {
    const first = pass % 2 === 1 ? 'floor' : 'ours';
    const measure = async (side: 'floor' | 'ours') => {
      const figures =
        side === 'floor'
          ? await measureFloorCost(ctx, { code: `floor-${pass}`, ...options, concurrency: COST_CONCURRENCY })
          : await measureSessionCost(ctx, { code: `now-${pass}`, ...options, concurrency: COST_CONCURRENCY });
      ctx.log(`  ${side}, round ${pass}: paid ${figures.paidSessionCpuMs} ms, abandoned ${figures.abandonedSessionCpuMs} ms`);
      return figures;
    };
    let floor: CostFigures, now: CostFigures;
    if (first === 'floor') {
      floor = await measure('floor');
      now = await measure('ours');
    } else {
      now = await measure('ours');
      floor = await measure('floor');
    }
    const pair = (key: 'paidSessionCpuMs' | 'abandonedSessionCpuMs') => ({
      oursCpuMs: now[key],
      floorCpuMs: floor[key],
      oursOverFloor: round(now[key] / floor[key], 2),
    });
    pairs.push({ floor, now, round: { first, paid: pair('paidSessionCpuMs'), abandoned: pair('abandonedSessionCpuMs') } });
  }
  const medianRound = (kind: 'paid' | 'abandoned') =>
    [...pairs].sort((a, b) => a.round[kind].oursOverFloor - b.round[kind].oursOverFloor)[Math.floor(pairs.length / 2)]!;
  const [paid, abandoned] = [medianRound('paid'), medianRound('abandoned')];
  return {
    paidSessionCpuMs: paid.now.paidSessionCpuMs,
    abandonedSessionCpuMs: abandoned.now.abandonedSessionCpuMs,
    floorPaidSessionCpuMs: paid.floor.paidSessionCpuMs,
    floorAbandonedSessionCpuMs: abandoned.floor.abandonedSessionCpuMs,
    paidOverFloor: paid.round.paid.oursOverFloor,
    abandonedOverFloor: abandoned.round.abandoned.oursOverFloor,
    now: { ...paid.now, abandonedSessionCpuMs: abandoned.now.abandonedSessionCpuMs, abandoned: abandoned.now.abandoned },
    floor: { ...paid.floor, abandonedSessionCpuMs: abandoned.floor.abandonedSessionCpuMs, abandoned: abandoned.floor.abandoned },
    rounds: pairs.map((p) => p.round),
  };
}

/**
 * `--only floor-sandbox`: the floor with the SDK's sandbox defaults and with ours, and our sessions,
 * in turn in each round; each figure the lowest of its rounds (what a quiet machine gives).
 */
export async function measureFloorSandbox(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number }) {
  const rounds: Array<Record<FloorSandbox | 'now', CostFigures>> = [];
  for (let pass = 1; pass <= options.rounds; pass++) {
    const measured = {} as Record<FloorSandbox | 'now', CostFigures>;
    for (const sandbox of ['sdk', 'ours'] as const) {
      measured[sandbox] = await measureFloorCost(ctx, { code: `floor-${sandbox}-${pass}`, ...options, concurrency: COST_CONCURRENCY, sandbox });
      ctx.log(
        `  floor (${sandbox} sandbox), round ${pass}: paid ${measured[sandbox].paidSessionCpuMs} ms, abandoned ${measured[sandbox].abandonedSessionCpuMs} ms`,
      );
    }
    measured.now = await measureSessionCost(ctx, { code: `now-${pass}`, ...options, concurrency: COST_CONCURRENCY });
    ctx.log(`  ours, round ${pass}: paid ${measured.now.paidSessionCpuMs} ms, abandoned ${measured.now.abandonedSessionCpuMs} ms`);
    rounds.push(measured);
  }
  const { lowest, byProcess } = ofRounds(rounds);
  const [sdk, ours, now] = [lowest('sdk'), lowest('ours'), lowest('now')];
  return {
    floorSdkSandbox: sdk,
    floorOurSandbox: ours,
    now,
    paidOverFloor: { sdk: round(now.paid / sdk.paid, 2), ours: round(now.paid / ours.paid, 2) },
    abandonedOverFloor: { sdk: round(now.abandoned / sdk.abandoned, 2), ours: round(now.abandoned / ours.abandoned, 2) },
    byProcess,
  };
}

/** Each measurement's lowest paid and abandoned figures over the rounds (what a quiet machine gives), and every round's by process. */
function ofRounds<Name extends string>(rounds: Array<Record<Name, CostFigures>>) {
  const least = (of: Name, key: 'paidSessionCpuMs' | 'abandonedSessionCpuMs') => Math.min(...rounds.map((r) => r[of][key]));
  return {
    lowest: (of: Name) => ({ paid: least(of, 'paidSessionCpuMs'), abandoned: least(of, 'abandonedSessionCpuMs') }),
    byProcess: rounds.map((r) =>
      Object.fromEntries(Object.entries<CostFigures>(r).map(([k, f]) => [k, { paid: f.paid.cpuMsByProcess, abandoned: f.abandoned.cpuMsByProcess }])),
    ),
  };
}

/**
 * `--only cost-before --before <dir>`: one change's effect, measured alone in one run. The floor, the
 * other checkout's sessions and ours, in turn in each round, on the same servers (the roles of each
 * checkout run its own code); each figure the lowest of its rounds (what a quiet machine gives).
 */
export async function measureCostAgainst(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number; before: string }) {
  const { before, ...sessions } = options;
  const rounds: Array<Record<'floor' | 'before' | 'now', CostFigures>> = [];
  for (let pass = 1; pass <= options.rounds; pass++) {
    const floor = await measureFloorCost(ctx, { code: `floor-${pass}`, ...sessions, concurrency: COST_CONCURRENCY });
    const earlier = await measureSessionCost(ctx, { code: `before-${pass}`, ...sessions, concurrency: COST_CONCURRENCY, root: before });
    const now = await measureSessionCost(ctx, { code: `now-${pass}`, ...sessions, concurrency: COST_CONCURRENCY });
    for (const [name, f] of Object.entries({ floor, before: earlier, now }))
      ctx.log(`  ${name}, round ${pass}: paid ${f.paidSessionCpuMs} ms, abandoned ${f.abandonedSessionCpuMs} ms`);
    rounds.push({ floor, before: earlier, now });
  }
  const { lowest, byProcess } = ofRounds(rounds);
  const [floor, earlier, now] = [lowest('floor'), lowest('before'), lowest('now')];
  return {
    floor,
    before: earlier,
    now,
    paidOverFloor: { before: round(earlier.paid / floor.paid, 2), now: round(now.paid / floor.paid, 2) },
    abandonedOverFloor: { before: round(earlier.abandoned / floor.abandoned, 2), now: round(now.abandoned / floor.abandoned, 2) },
    byProcess,
  };
}
