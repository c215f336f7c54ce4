import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { payUpdate } from '../../workflows/cart-session/messages.js';
import { createCart, forEachConcurrently, type BenchContext } from './context.js';
import { cartReadyToPay } from './pay-to-webhook.js';
import { cpuMeter, type CpuFigures } from './cpu.js';
import { round } from './load.js';
import { costRatio, measureInRounds, medianRound } from './rounds.js';
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
 * Our sessions and the floor's, measured in pairs in this run, which side goes first alternating. Each
 * ratio is its median round's (./rounds.ts), and its CPU figures are that round's.
 */
export async function measureCost(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number }): Promise<CostComparison> {
  const { measured } = await costInRounds(ctx, options.rounds, {
    floor: (pass) => measureFloorCost(ctx, { code: `floor-${pass}`, ...options, concurrency: COST_CONCURRENCY }),
    ours: (pass) => measureSessionCost(ctx, { code: `now-${pass}`, ...options, concurrency: COST_CONCURRENCY }),
  });
  const pairs = measured.map(({ first, floor, ours: now }) => {
    const pair = (key: 'paidSessionCpuMs' | 'abandonedSessionCpuMs') => ({
      oursCpuMs: now[key],
      floorCpuMs: floor[key],
      oursOverFloor: round(now[key] / floor[key], 2),
    });
    const costRound: CostRound = { first, paid: pair('paidSessionCpuMs'), abandoned: pair('abandonedSessionCpuMs') };
    return { floor, now, round: costRound };
  });
  const paid = medianRound(pairs, (p) => p.round.paid.oursOverFloor, 'lower');
  const abandoned = medianRound(pairs, (p) => p.round.abandoned.oursOverFloor, 'lower');
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
 * The sides, each with its measurement, in turn in each round (./rounds.ts); then `of` over `against`
 * for paid and for abandoned sessions, each read in its median round with that round's figures.
 */
async function costInRounds<Side extends string>(ctx: BenchContext, rounds: number, sides: Record<Side, (pass: number) => Promise<CostFigures>>) {
  const measured = await measureInRounds(Object.keys(sides) as Side[], rounds, async (side, pass) => {
    const figures = await sides[side](pass);
    ctx.log(`  ${side}, round ${pass}: paid ${figures.paidSessionCpuMs} ms, abandoned ${figures.abandonedSessionCpuMs} ms`);
    return figures;
  });
  const ratio = (of: Side, against: Side) => {
    const read = (key: 'paidSessionCpuMs' | 'abandonedSessionCpuMs') =>
      costRatio(
        measured,
        (r) => r[of][key],
        (r) => r[against][key],
      );
    return { paid: read('paidSessionCpuMs'), abandoned: read('abandonedSessionCpuMs') };
  };
  const everyRound = measured.map((r) => ({
    first: r.first,
    ...Object.fromEntries(
      (Object.keys(sides) as Side[]).map((side) => [side, { paid: r[side].paid.cpuMsByProcess, abandoned: r[side].abandoned.cpuMsByProcess }]),
    ),
  }));
  return { measured, ratio, everyRound };
}

/**
 * `--only floor-sandbox`: the floor with the SDK's sandbox defaults and with ours, and our sessions, in
 * turn in each round; ours over each floor read in its median round (./rounds.ts).
 */
export async function measureFloorSandbox(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number }) {
  const floorWith = (sandbox: FloorSandbox) => (pass: number) =>
    measureFloorCost(ctx, { code: `floor-${sandbox}-${pass}`, ...options, concurrency: COST_CONCURRENCY, sandbox });
  const { ratio, everyRound } = await costInRounds(ctx, options.rounds, {
    'floor-sdk': floorWith('sdk'),
    'floor-ours': floorWith('ours'),
    now: (pass) => measureSessionCost(ctx, { code: `now-${pass}`, ...options, concurrency: COST_CONCURRENCY }),
  });
  return { overFloorWithSdkSandbox: ratio('now', 'floor-sdk'), overFloorWithOurSandbox: ratio('now', 'floor-ours'), byProcess: everyRound };
}

/**
 * `--only cost-before --before <dir>`: one change's effect, measured alone in one run. The floor, the
 * other checkout's sessions and ours, in turn in each round, on the same servers (the roles of each
 * checkout run its own code). The change is read as ours over the other checkout's, and each over the
 * floor, in its median round (./rounds.ts).
 */
export async function measureCostAgainst(ctx: BenchContext, options: { paidSessions: number; abandonedSessions: number; rounds: number; before: string }) {
  const { before, ...sessions } = options;
  const { ratio, everyRound } = await costInRounds(ctx, options.rounds, {
    floor: (pass) => measureFloorCost(ctx, { code: `floor-${pass}`, ...sessions, concurrency: COST_CONCURRENCY }),
    before: (pass) => measureSessionCost(ctx, { code: `before-${pass}`, ...sessions, concurrency: COST_CONCURRENCY, root: before }),
    now: (pass) => measureSessionCost(ctx, { code: `now-${pass}`, ...sessions, concurrency: COST_CONCURRENCY }),
  });
  return { nowOverBefore: ratio('now', 'before'), beforeOverFloor: ratio('before', 'floor'), nowOverFloor: ratio('now', 'floor'), byProcess: everyRound };
}
