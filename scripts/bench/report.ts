import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { latencyChart, peakChart } from './chart.js';
import type { CurvePoint } from './cost-curve.js';
import { round, type LoadFigures } from './load.js';
import type { MeasuredCpu } from './cpu.js';
import type { PageFigures } from './page.js';
import type { LandingFigures } from './pay-to-landing.js';
import type { PayFigures } from './pay-to-webhook.js';
import type { PeakFigures } from './peak.js';
import { GIVE_UP_AFTER_LAST_EXPIRY_S, type ScaleFigures } from './scale.js';
import type { CostComparison } from './session-cost.js';
import type { PairRound } from './start-pairs.js';
import type { TemporalTopology } from '../infrastructure.js';

export interface BenchResults {
  generatedAt: string;
  machine: Record<string, string | number>;
  versions: Record<string, string>;
  concurrency: number;
  durationS: number;
  limit?: { startsPerSec: number; p50Ms: number; p99Ms: number; errors: number } & CpuShare;
  createCart?: {
    reqPerSec: number;
    p50Ms: number;
    p99Ms: number;
    errors: number;
    ratioToLimit: number | null;
    p99RatioToLimit: number | null;
    /** Each round of create-cart against the raw start (scripts/bench/start-pairs.ts); the figures above are the median round's. */
    rounds?: PairRound[];
    /** True when each side of each round ran on a Temporal server started again empty (scripts/bench/start-pairs.ts). */
    freshServerPerSide?: boolean;
  } & CpuShare;
  baseline?: { reqPerSec: number; p50Ms: number; p99Ms: number; errors: number; createCartRatio: number | null };
  page?: PageResult;
  /** The page once the customer has acted: its step comes from a query of the workflow. */
  pageAfterFirstAction?: PageResult;
  payToWebhook?: PayFigures;
  /** The same one customer at a time. */
  payToWebhookAlone?: PayFigures;
  /** Pay click → the merchant's success page in Chromium, one checkout at a time. */
  payToLanding?: LandingFigures;
  scale?: ScaleFigures;
  costCurve?: CurvePoint[];
  /** CPU of every process per paid and abandoned session, ours and the floor of what Temporal itself needs, in one run. */
  cost?: CostComparison;
  /** `npm run bench -- --peak`: open-loop whole sessions with a burst, a worker SIGKILLed and temporal-server restarted (scripts/bench/peak.ts). */
  peak?: PeakFigures;
  /** The create-cart, pay and cost figures of a run on each Temporal topology (bench-topologies.json beside bench.json). */
  topologies?: Partial<Record<TemporalTopology, TopologyFigures>>;
  targets?: Target[];
}

/** CPU milliseconds per request by process, and the share of the cores that was busy (scripts/bench/cpu.ts). */
type CpuShare = { cpuMsPerRequest?: Record<string, number>; machineBusyPct?: number };
type PageResult = { reqPerSec: number; p50Ms: number; p99Ms: number; errors: number } & CpuShare;

interface Target {
  what: string;
  target: string;
  measured: string;
  met: boolean;
  /** How far from the target, when missed. */
  by: string;
}

const ratio = (a: number | undefined, b: number | undefined) => (a && b ? round(a / b, 2) : null);

/** One topology's headline figures: where they come from, and the create-cart, pay and cost figures of that run. */
export interface TopologyFigures {
  temporalServer: string;
  /** The Node every role and the bench ran on; absent from recordings made before it was kept. */
  node?: string;
  generatedAt: string;
  limit?: { startsPerSec: number; p99Ms: number };
  createCart?: { reqPerSec: number; p99Ms: number; ratioToLimit: number | null; p99RatioToLimit: number | null; freshServerPerSide?: boolean };
  payToWebhook?: { p50Ms: number; p99Ms: number; redirectP50Ms: number; concurrency: number; cpuMsPerPayment: Record<string, number> };
  cost?: Omit<CostComparison, 'now' | 'floor'>;
}

export function topologyFigures(r: BenchResults): TopologyFigures {
  const { limit, createCart, payToWebhook: pay, cost } = r;
  return {
    temporalServer: r.versions.temporalServer ?? 'unknown',
    ...(r.versions.node ? { node: r.versions.node } : {}),
    generatedAt: r.generatedAt,
    ...(limit ? { limit: { startsPerSec: limit.startsPerSec, p99Ms: limit.p99Ms } } : {}),
    ...(createCart
      ? {
          createCart: {
            reqPerSec: createCart.reqPerSec,
            p99Ms: createCart.p99Ms,
            ratioToLimit: createCart.ratioToLimit,
            p99RatioToLimit: createCart.p99RatioToLimit,
            ...(createCart.freshServerPerSide !== undefined ? { freshServerPerSide: createCart.freshServerPerSide } : {}),
          },
        }
      : {}),
    ...(pay
      ? {
          payToWebhook: {
            p50Ms: pay.p50Ms,
            p99Ms: pay.p99Ms,
            redirectP50Ms: pay.redirectP50Ms,
            concurrency: pay.concurrency,
            cpuMsPerPayment: pay.cpuMsPerPayment,
          },
        }
      : {}),
    ...(cost ? { cost: (({ now: _now, floor: _floor, ...figures }) => figures)(cost) } : {}),
  };
}

/** What the measurements gave, before the ratios and targets are worked out. */
export interface Measured {
  limit?: LoadFigures & MeasuredCpu;
  createCart?: LoadFigures & MeasuredCpu;
  pairRounds?: PairRound[];
  freshServerPerSide?: boolean;
  baseline?: LoadFigures;
  page?: PageFigures;
  pageAfterFirstAction?: PageFigures;
  payToWebhook?: PayFigures;
  payToWebhookAlone?: PayFigures;
  payToLanding?: LandingFigures;
  scale?: ScaleFigures;
  costCurve?: CurvePoint[];
  cost?: CostComparison;
}

export function assembleResults(base: Pick<BenchResults, 'generatedAt' | 'machine' | 'versions' | 'concurrency' | 'durationS'>, m: Measured): BenchResults {
  const r: BenchResults = { ...base };
  if (m.limit) r.limit = { startsPerSec: m.limit.perSec, p50Ms: m.limit.p50Ms, p99Ms: m.limit.p99Ms, errors: m.limit.errors, ...cpuShare(m.limit) };
  if (m.createCart) {
    r.createCart = {
      reqPerSec: m.createCart.perSec,
      p50Ms: m.createCart.p50Ms,
      p99Ms: m.createCart.p99Ms,
      errors: m.createCart.errors,
      ratioToLimit: ratio(m.createCart.perSec, m.limit?.perSec),
      p99RatioToLimit: ratio(m.createCart.p99Ms, m.limit?.p99Ms),
      ...(m.pairRounds ? { rounds: m.pairRounds } : {}),
      ...(m.freshServerPerSide !== undefined ? { freshServerPerSide: m.freshServerPerSide } : {}),
      ...cpuShare(m.createCart),
    };
  }
  if (m.baseline) {
    r.baseline = {
      reqPerSec: m.baseline.perSec,
      p50Ms: m.baseline.p50Ms,
      p99Ms: m.baseline.p99Ms,
      errors: m.baseline.errors,
      createCartRatio: ratio(m.createCart?.perSec, m.baseline.perSec),
    };
  }
  if (m.page) r.page = pageResult(m.page);
  if (m.pageAfterFirstAction) r.pageAfterFirstAction = pageResult(m.pageAfterFirstAction);
  if (m.payToWebhook) r.payToWebhook = m.payToWebhook;
  if (m.payToWebhookAlone) r.payToWebhookAlone = m.payToWebhookAlone;
  if (m.payToLanding) r.payToLanding = m.payToLanding;
  if (m.scale) r.scale = m.scale;
  if (m.costCurve) r.costCurve = m.costCurve;
  if (m.cost) r.cost = m.cost;
  r.targets = targets(r);
  return r;
}

const cpuShare = (m: MeasuredCpu): CpuShare => ({ cpuMsPerRequest: m.cpuMsPerRequest, machineBusyPct: m.cpu.machineBusyPct });

function pageResult(p: PageFigures): PageResult {
  return { reqPerSec: p.perSec, p50Ms: p.p50Ms, p99Ms: p.p99Ms, errors: p.errors, ...cpuShare(p) };
}

function atLeast(what: string, target: number, measured: number | null | undefined, unit: string, label: string): Target {
  const met = measured != null && measured >= target;
  return {
    what,
    target: `≥ ${target}${unit}`,
    measured: measured == null ? 'n/a' : `${measured}${unit}`,
    met,
    by: met || measured == null ? '' : `${round(target - measured, 2)}${unit} short (${label})`,
  };
}
function atMost(what: string, target: number, measured: number | null | undefined, unit: string): Target {
  const met = measured != null && measured <= target;
  return {
    what,
    target: `≤ ${target}${unit}`,
    measured: measured == null ? 'n/a' : `${measured}${unit}`,
    met,
    by: met || measured == null ? '' : `${round(measured - target, 2)}${unit} over${target > 0 ? ` (${round(measured / target, 2)}×)` : ''}`,
  };
}

/** The targets worked out again from the figures (for --render, after the targets' wording changes). */
export function withTargets(r: BenchResults): BenchResults {
  return { ...r, targets: targets(r) };
}

function targets(r: BenchResults): Target[] {
  const t: Target[] = [];
  // The dev server's from its latest run, as the costs below: a `--record-topology` run is newer than the full one.
  const devCreate = r.topologies?.dev?.createCart ?? r.createCart;
  if (devCreate) {
    t.push(atLeast('create-cart throughput / raw start rate', 0.8, devCreate.ratioToLimit, '×', 'ratio'));
    t.push(atMost('create-cart p99 / raw start p99', 1.5, devCreate.p99RatioToLimit, '×'));
  }
  if (r.page) t.push(atMost('checkout page p99', 25, r.page.p99Ms, ' ms'));
  if (r.payToWebhook) t.push(atMost(`pay → verified order_created p50, ${r.payToWebhook.concurrency} at a time`, 150, r.payToWebhook.p50Ms, ' ms'));
  if (r.payToWebhookAlone) t.push(atMost('pay → verified order_created p50, one at a time', 150, r.payToWebhookAlone.p50Ms, ' ms'));
  if (r.payToLanding) {
    t.push(atMost('Pay click → success page in Chromium p50, one at a time', 400, r.payToLanding.p50Ms, ' ms'));
    t.push(atMost('Pay click → success page in Chromium p99, one at a time', 1000, r.payToLanding.p99Ms, ' ms'));
  }
  // A session's CPU against the least Temporal itself needs for it, measured beside it (issue 53), each
  // topology's from its latest run: an `--only cost --record-topology` run is newer than the full one.
  for (const [where, cost] of [
    ['Temporal dev server', r.topologies?.dev?.cost ?? r.cost],
    ['temporal-server', r.topologies?.server?.cost],
  ] as const) {
    if (!cost?.paidOverFloor) continue;
    t.push(atMost(`paid session CPU / the floor's, ${where} (${cost.paidSessionCpuMs} / ${cost.floorPaidSessionCpuMs} ms)`, 1.5, cost.paidOverFloor, '×'));
    t.push(
      atMost(
        `abandoned session CPU / the floor's, ${where} (${cost.abandonedSessionCpuMs} / ${cost.floorAbandonedSessionCpuMs} ms)`,
        1.5,
        cost.abandonedOverFloor,
        '×',
      ),
    );
  }
  const serverCreate = r.topologies?.server?.createCart;
  if (serverCreate) t.push(atLeast('create-cart throughput / raw start rate, temporal-server', 0.8, serverCreate.ratioToLimit, '×', 'ratio'));
  if (r.payToWebhook) t.push(atMost(`pay → redirect p99, ${r.payToWebhook.concurrency} at a time`, 700, r.payToWebhook.redirectP99Ms, ' ms'));
  if (r.peak && !r.peak.quick) {
    const { peak } = r;
    t.push(atMost(`peak (${peak.topology}): sessions lost`, 0, peak.lost, ''));
    t.push(atMost(`peak (${peak.topology}): most charges for one cart`, 1, peak.maxChargesPerCart, ''));
    t.push(atLeast(`peak (${peak.topology}): faults injected during the burst`, 2, peak.faults.length, '', 'faults'));
    t.push(atMost(`peak (${peak.topology}): pay → redirect p99 during the burst, outside fault windows`, 1000, peak.payRedirectP99Ms, ' ms'));
  }
  if (r.scale) {
    t.push(atMost(`worker RSS with ${r.scale.sessions} open sessions`, 1024, r.scale.workerRssMiB, ' MiB'));
    const within = 'every order_abandoned delivered within (s of its expiry)';
    if (r.scale.allDeliveredWithinS != null) t.push(atMost(within, 60, r.scale.allDeliveredWithinS, ' s'));
    else {
      const { lost, deliveryLagP50S: p50, deliveryLagP99S: p99 } = r.scale;
      t.push({
        what: within,
        target: '≤ 60 s',
        measured: `not all delivered; of those that were: p50 ${p50} s, p99 ${p99} s`,
        met: false,
        by: `${lost} still undelivered`,
      });
    }
    t.push(atMost(`order_abandoned lost (not verified within ${GIVE_UP_AFTER_LAST_EXPIRY_S} s of the last expiry)`, 0, r.scale.lost, ''));
  }
  return t;
}

const row = (cells: Array<string | number | null | undefined>) => `| ${cells.map((c) => (c == null ? 'n/a' : String(c))).join(' | ')} |`;

/** reports/bench.md: the figures of `r`, and beside them those of `before` (the run before tuning) when given. */
export function markdown(r: BenchResults, before: BenchResults | undefined, notes: string): string {
  const out: string[] = [
    '# Benchmark',
    '',
    `Generated by \`npm run bench\` (scripts/bench/main.ts) at ${r.generatedAt}. One run; every figure below comes from it.`,
    '',
  ];
  out.push('## Machine and versions', '', '| | |', '|---|---|');
  for (const [k, v] of Object.entries({ ...r.machine, ...r.versions })) out.push(row([k, v]));
  out.push(
    '',
    `Concurrency ${r.concurrency} where concurrency applies; each throughput figure is ${r.durationS} s of closed-loop load after 2 s of warm-up.`,
    '',
  );

  out.push('## Figures', '', row(['measurement', 'throughput', 'p50', 'p99', 'errors', 'ratio']), '|---|---|---|---|---|---|');
  if (r.limit)
    out.push(
      row(['limit: raw `client.workflow.start`', `${r.limit.startsPerSec} starts/s`, `${r.limit.p50Ms} ms`, `${r.limit.p99Ms} ms`, r.limit.errors, '1×']),
    );
  if (r.createCart) {
    out.push(
      row([
        'create-cart `POST /v2/public/api/cart/`',
        `${r.createCart.reqPerSec} req/s`,
        `${r.createCart.p50Ms} ms`,
        `${r.createCart.p99Ms} ms`,
        r.createCart.errors,
        `${r.createCart.ratioToLimit}× the start rate; p99 ${r.createCart.p99RatioToLimit}× the start p99`,
      ]),
    );
  }
  if (r.baseline) {
    out.push(
      row([
        'non-durable baseline (validate + PostgreSQL only)',
        `${r.baseline.reqPerSec} req/s`,
        `${r.baseline.p50Ms} ms`,
        `${r.baseline.p99Ms} ms`,
        r.baseline.errors,
        `create-cart is ${r.baseline.createCartRatio}× of it`,
      ]),
    );
  }
  if (r.page)
    out.push(row(['checkout page `GET /?token=`, first load', `${r.page.reqPerSec} req/s`, `${r.page.p50Ms} ms`, `${r.page.p99Ms} ms`, r.page.errors, '']));
  const later = r.pageAfterFirstAction;
  if (later)
    out.push(
      row([
        'checkout page after a code was sent (queries the workflow)',
        `${later.reqPerSec} req/s`,
        `${later.p50Ms} ms`,
        `${later.p99Ms} ms`,
        later.errors,
        '',
      ]),
    );
  for (const p of [r.payToWebhook, r.payToWebhookAlone]) {
    if (!p) continue;
    out.push(row([`pay → verified order_created (${p.carts} carts, ${p.concurrency} at a time)`, '', `${p.p50Ms} ms`, `${p.p99Ms} ms`, p.errors, '']));
    out.push(row([`pay → redirect (the pay update's answer), ${p.concurrency} at a time`, '', `${p.redirectP50Ms} ms`, `${p.redirectP99Ms} ms`, '', '']));
  }
  const landing = r.payToLanding;
  if (landing) {
    out.push(
      row([
        `Pay click → success page in Chromium (${landing.checkouts} checkouts, one at a time; ${landing.processingShown} showed "processing"; the Pay post answered in ${landing.payAnswerP50Ms} ms p50; ${landing.landedBeforeWebhook} landed before the merchant had the order)`,
        '',
        `${landing.p50Ms} ms`,
        `${landing.p99Ms} ms`,
        landing.errors,
        '',
      ]),
      row([
        'Pay click → first `order_created` verified at the merchant, the same checkouts',
        '',
        `${landing.webhookP50Ms} ms`,
        `${landing.webhookP99Ms} ms`,
        '',
        '',
      ]),
    );
  }
  out.push('');
  const rounds = r.createCart?.rounds;
  if (rounds) {
    out.push(
      `Create-cart and the raw start ran in ${rounds.length} rounds, each round alternating which ran first; the table gives the round with the median ratio:`,
      '',
      row(['round', 'ran first', 'raw starts/s', 'create-cart req/s', 'ratio', 'p99 ratio']),
      '|---|---|---|---|---|---|',
      ...rounds.map((p, i) => row([i + 1, p.first, p.startsPerSec, p.createCartPerSec, `${p.ratioToLimit}×`, `${p.p99RatioToLimit}×`])),
      '',
    );
  }
  if (r.scale) {
    const s = r.scale;
    out.push('## Scale', '', '| | |', '|---|---|');
    out.push(row(['sessions created / open at once', `${s.sessions} / ${s.openAtOnce} (created in ${s.createdInS} s, lifetime ${s.lifetimeS} s)`]));
    out.push(row(['peak RSS: worker / API / Temporal dev server', `${s.workerRssMiB} / ${s.apiRssMiB} / ${s.temporalRssMiB ?? 'n/a (external)'} MiB`]));
    out.push(row(['expiry → verified order_abandoned: p50 / p99 / max', `${s.deliveryLagP50S} / ${s.deliveryLagP99S} / ${s.allDeliveredWithinS ?? 'n/a'} s`]));
    out.push(row(['last expiry → all delivered', `${s.drainedAfterLastExpiryS ?? 'n/a'} s`]));
    out.push(
      row([
        `lost (not verified within ${GIVE_UP_AFTER_LAST_EXPIRY_S} s of the last expiry) / duplicated at receiver / bad signatures`,
        `${s.lost} / ${s.duplicatedAtReceiver} / ${s.invalidSignatures}`,
      ]),
    );
    out.push('');
  }
  out.push(...cpuSection(r));
  if (r.costCurve) {
    out.push('## Cost curve', '', '![latency against concurrency](bench-latency.svg)', '');
    out.push(
      row(['clients', 'create-cart req/s', 'create-cart p50', 'create-cart p99', 'raw start/s', 'raw start p99', 'ratio']),
      '|---|---|---|---|---|---|---|',
    );
    for (const p of r.costCurve) {
      out.push(
        row([
          p.concurrency,
          p.createCart.perSec,
          `${p.createCart.p50Ms} ms`,
          `${p.createCart.p99Ms} ms`,
          p.limit.perSec,
          `${p.limit.p99Ms} ms`,
          `${ratio(p.createCart.perSec, p.limit.perSec)}×`,
        ]),
      );
    }
    out.push('');
  }
  out.push(...costSection(r), ...topologySection(r), ...peakSection(r));
  if (r.targets?.length) {
    out.push('## Targets', '', row(['target', 'wanted', 'measured', 'met', 'missed by']), '|---|---|---|---|---|');
    for (const t of r.targets) out.push(row([t.what, t.target, t.measured, t.met ? 'yes' : 'no', t.by]));
    out.push('');
  }
  if (before) {
    const pairs: Array<[string, number | null | undefined, number | null | undefined]> = [
      ['raw starts/s', before.limit?.startsPerSec, r.limit?.startsPerSec],
      ['raw start p99 (ms)', before.limit?.p99Ms, r.limit?.p99Ms],
      ['create-cart req/s', before.createCart?.reqPerSec, r.createCart?.reqPerSec],
      ['create-cart p99 (ms)', before.createCart?.p99Ms, r.createCart?.p99Ms],
      ['create-cart / raw start rate', before.createCart?.ratioToLimit, r.createCart?.ratioToLimit],
      ['create-cart p99 / raw start p99', before.createCart?.p99RatioToLimit, r.createCart?.p99RatioToLimit],
      ['baseline req/s', before.baseline?.reqPerSec, r.baseline?.reqPerSec],
      ['page p99 (ms)', before.page?.p99Ms, r.page?.p99Ms],
      ['pay → order_created p50 (ms)', before.payToWebhook?.p50Ms, r.payToWebhook?.p50Ms],
      ['pay → order_created p99 (ms)', before.payToWebhook?.p99Ms, r.payToWebhook?.p99Ms],
      ['pay → order_created p50, one at a time (ms)', before.payToWebhookAlone?.p50Ms, r.payToWebhookAlone?.p50Ms],
      ['Pay click → success page p50, Chromium (ms)', before.payToLanding?.p50Ms, r.payToLanding?.p50Ms],
      ['scale: worker RSS (MiB)', before.scale?.workerRssMiB, r.scale?.workerRssMiB],
      ['scale: all delivered within (s)', before.scale?.allDeliveredWithinS, r.scale?.allDeliveredWithinS],
      ['scale: lost', before.scale?.lost, r.scale?.lost],
    ];
    out.push(
      '## Before and after tuning',
      '',
      `Before: reports/bench-before.json (${before.generatedAt}, the code before the tuning commits); after: this run. Absolute figures move with the machine's load; the ratios are the comparison.`,
      '',
    );
    out.push(row(['figure', 'before', 'after']), '|---|---|---|');
    for (const [name, b, a] of pairs) out.push(row([name, b, a]));
    out.push('');
  }
  out.push(notes.trim(), '');
  return out.join('\n');
}

/** What a whole session costs, ours beside the floor of what Temporal itself needs (scripts/bench/session-cost.ts). */
function costSection(r: BenchResults): string[] {
  const c = r.cost;
  if (!c?.floor) return [];
  const processes = ['temporal', 'postgres', 'worker', 'api'];
  const out = [
    '## What a session costs',
    '',
    `CPU of every process (the bench's own excluded) per session, from create-cart to the verified final webhook: ${c.now.paid.sessions} paid and ${c.now.abandoned.sessions} abandoned sessions, ${c.now.paid.concurrency} at a time, on roles of their own; \`floor\` is a bare workflow with the least a session needs of Temporal (scripts/bench/floor/), driven the same way by a plain client, on a worker of the same settings, on the same servers in the same run, in pairs of rounds, which side goes first alternating. Each ratio, and the figures beside it, are its median round's (of an even count of rounds, the higher middle one).`,
    '',
    row(['session', 'code', ...processes.map((p) => `${p} ms`), 'total ms', 'ours / floor']),
    `|---|---|${processes.map(() => '---|').join('')}---|---|`,
  ];
  for (const kind of ['paid', 'abandoned'] as const) {
    for (const [code, figures] of [
      ['floor', c.floor],
      ['ours', c.now],
    ] as const) {
      const f = figures[kind];
      out.push(
        row([
          kind,
          code,
          ...processes.map((p) => f.cpuMsByProcess[p]),
          f.cpuMs,
          code === 'ours' ? `${kind === 'paid' ? c.paidOverFloor : c.abandonedOverFloor}×` : '',
        ]),
      );
    }
  }
  out.push('');
  return out;
}

/** The same figures on the dev server and on temporal-server + PostgreSQL, side by side. */
function topologySection(r: BenchResults): string[] {
  const t = r.topologies;
  if (!t || Object.keys(t).length === 0) return [];
  const sides = Object.entries<TopologyFigures>(t);
  const line = (what: string, value: (f: TopologyFigures) => string | number | null | undefined) => row([what, ...sides.map(([, f]) => value(f))]);
  return [
    '## Topologies',
    '',
    'The same measurements on the Temporal CLI dev server (SQLite) and on temporal-server on PostgreSQL, as production runs it; each column comes from its own run (bench-topologies.json beside bench.json).',
    '',
    row(['', ...sides.map(([name]) => name)]),
    `|---|${sides.map(() => '---|').join('')}`,
    line('Temporal', (f) => f.temporalServer),
    line('Node', (f) => f.node ?? 'not recorded'),
    line('run at', (f) => f.generatedAt),
    line('raw starts/s (p99 ms)', (f) => f.limit && `${f.limit.startsPerSec} (${f.limit.p99Ms})`),
    line('create-cart req/s (p99 ms)', (f) => f.createCart && `${f.createCart.reqPerSec} (${f.createCart.p99Ms})`),
    line('create-cart / raw start rate; p99 ratio', (f) => f.createCart && `${f.createCart.ratioToLimit}×; ${f.createCart.p99RatioToLimit}×`),
    line(
      'pay → verified order_created p50 / p99 ms',
      (f) => f.payToWebhook && `${f.payToWebhook.p50Ms} / ${f.payToWebhook.p99Ms} (${f.payToWebhook.concurrency} at a time)`,
    ),
    line('pay → redirect p50 ms', (f) => f.payToWebhook?.redirectP50Ms),
    line(
      'paid session CPU ms (floor)',
      (f) => f.cost?.paidOverFloor && `${f.cost.paidSessionCpuMs} (${f.cost.floorPaidSessionCpuMs}): ${f.cost.paidOverFloor}×`,
    ),
    line(
      'abandoned session CPU ms (floor)',
      (f) => f.cost?.abandonedOverFloor && `${f.cost.abandonedSessionCpuMs} (${f.cost.floorAbandonedSessionCpuMs}): ${f.cost.abandonedOverFloor}×`,
    ),
    line(
      'ours / floor, round by round: paid; abandoned',
      (f) =>
        f.cost?.rounds && `${f.cost.rounds.map((c) => c.paid.oursOverFloor).join(', ')}; ${f.cost.rounds.map((c) => c.abandoned.oursOverFloor).join(', ')}`,
    ),
    '',
  ];
}

/** The peak-day run: its phases, each fault's window, and pay → redirect over time (bench-peak.svg). */
function peakSection(r: BenchResults): string[] {
  const { peak } = r;
  if (!peak) return [];
  const s = peak.settings;
  const ms = (x: number) => (Number.isNaN(x) ? 'n/a' : `${x} ms`);
  return [
    '## Peak day',
    '',
    `\`npm run bench -- --peak${peak.quick ? ' --quick' : ''}\` on ${peak.topology}, seed ${peak.seed}${peak.quick ? ' (a quick smoke run: its figures are no measurement of the targets)' : ''}: 2 API, 2 page and 2 worker processes. Capacity ${peak.capacityPerMinute} paid sessions/min (${s.capacityConcurrency} customers one after another for ${s.capacityS} s); then whole sessions arriving open-loop (Poisson) at ${peak.basePerMinute}/min for ${s.beforeS} s, ${peak.burstPerMinute}/min for ${s.burstS} s, ${peak.basePerMinute}/min for ${s.afterS} s, ${Math.round(s.abandonShare * 100)} % of them left at the card step (abandoned at their ${s.lifetimeS} s expiry).`,
    '',
    '![pay → redirect over time](bench-peak.svg)',
    '',
    row([
      'sessions',
      'lost',
      'customers failed, by step',
      'most charges for one cart',
      'pay → redirect p99 in the burst (outside fault windows)',
      'drain after the burst',
      'create-carts shed (503 OVERLOADED)',
    ]),
    '|---|---|---|---|---|---|---|',
    row([
      peak.sessions,
      peak.lost,
      JSON.stringify(peak.customerFailures),
      peak.maxChargesPerCart,
      ms(peak.payRedirectP99Ms),
      peak.drainS == null ? 'not drained (a final event missing)' : `${peak.drainS} s`,
      peak.shedCreates ?? 'not counted (a run before admission)',
    ]),
    '',
    row(['phase', 'sessions', 'payments', 'pay → redirect p50', 'p99', 'pay → order_created p99']),
    '|---|---|---|---|---|---|',
    ...(['before', 'burst', 'after'] as const).map((name) => {
      const p = peak.phases[name];
      return row([
        name === 'burst'
          ? `burst, outside the fault windows (a pay in flight at a fault or clicked in the ${s.faultWindowS} s after it is the window's)`
          : name,
        p.sessions,
        p.pays,
        ms(p.payRedirectP50Ms),
        ms(p.payRedirectP99Ms),
        ms(p.payToWebhookP99Ms),
      ]);
    }),
    ...peak.faultWindows.map((w) =>
      row([
        `in flight at or clicked ${s.faultWindowS} s after: ${w.fault} (at ${w.atS} s)`,
        '',
        w.pays,
        ms(w.payRedirectP50Ms),
        `${ms(w.payRedirectP99Ms)} (worst ${ms(w.payRedirectMaxMs)})`,
        ms(w.payToWebhookP99Ms),
      ]),
    ),
    '',
    ...peak.faults.map((f) => `- ${f.atS} s: ${f.fault}; back after ${f.tookS} s`),
    `- drain: after the burst's end, until the last final event due by then (\`order_created\` at the Pay click, \`order_abandoned\` at expiry) reached the merchant.`,
    '',
  ];
}

/** Where the CPU went: each process's CPU milliseconds per operation, and how busy the machine's cores were. */
function cpuSection(r: BenchResults): string[] {
  const rows: Array<[string, Record<string, number> | undefined, number | undefined]> = [
    ['limit: raw start (per start; the client is `bench`)', r.limit?.cpuMsPerRequest, r.limit?.machineBusyPct],
    ['create-cart (per request)', r.createCart?.cpuMsPerRequest, r.createCart?.machineBusyPct],
    ['checkout page, first load (per request)', r.page?.cpuMsPerRequest, r.page?.machineBusyPct],
    ['checkout page after a code was sent (per request)', r.pageAfterFirstAction?.cpuMsPerRequest, r.pageAfterFirstAction?.machineBusyPct],
    [`pay → order_created, ${r.payToWebhook?.concurrency} at a time (per payment)`, r.payToWebhook?.cpuMsPerPayment, r.payToWebhook?.cpu.machineBusyPct],
    ['pay → order_created, one at a time (per payment)', r.payToWebhookAlone?.cpuMsPerPayment, r.payToWebhookAlone?.cpu.machineBusyPct],
    ['scale: expiry → order_abandoned drain (per session)', r.scale?.drainCpuMsPerSession, r.scale?.drainCpu.machineBusyPct],
  ];
  const present = rows.filter(([, perOp]) => perOp);
  if (!present.length) return [];
  const processes = ['temporal', 'postgres', 'worker', 'api', 'web', 'bench'];
  const out = [
    '## Where the CPU went',
    '',
    'CPU milliseconds each process spent per operation while it was measured (user + system, from /proc; PostgreSQL with its backends; `bench` is the load generator and receiver), and the share of all cores that was busy.',
    '',
    row(['measurement', ...processes.map((p) => `${p} ms`), 'total ms', 'cores busy']),
    `|---|${processes.map(() => '---|').join('')}---|---|`,
  ];
  for (const [what, perOp, busy] of present) {
    const total = round(
      processes.reduce((sum, p) => sum + (perOp![p] ?? 0), 0),
      1,
    );
    out.push(row([what, ...processes.map((p) => perOp![p]), total, busy == null ? null : `${busy} %`]));
  }
  out.push('');
  return out;
}

export function writeReports(dir: string, r: BenchResults, notes: string): void {
  mkdirSync(dir, { recursive: true });
  const beforeFile = path.join(dir, 'bench-before.json');
  const before = existsSync(beforeFile) ? (JSON.parse(readFileSync(beforeFile, 'utf8')) as BenchResults) : undefined;
  writeFileSync(path.join(dir, 'bench.json'), JSON.stringify(r, null, 2) + '\n');
  writeFileSync(path.join(dir, 'bench.md'), markdown(r, before, notes));
  if (r.costCurve) writeFileSync(path.join(dir, 'bench-latency.svg'), latencyChart(r.costCurve));
  if (r.peak) writeFileSync(path.join(dir, 'bench-peak.svg'), peakChart(r.peak));
}
