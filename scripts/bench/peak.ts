import { withCookies } from '../cookie-header.js';
import { loadConfig } from '../../core/config.js';
import { createDb, type Db } from '../../core/db/client.js';
import { freePort } from '../free-port.js';
import type { TemporalTopology } from '../infrastructure.js';
import { cartRequestBody } from './context.js';
import { cpuMeter } from './cpu.js';
import { quantile, round } from './load.js';
import { registerReceivingMerchant, startVerifyingReceiver, type VerifyingReceiver } from './receiver.js';
import { startBenchStack, type BenchStack, type Role } from './stack.js';

/**
 * `npm run bench -- --peak`: a merchant's busiest day on the production topology (temporal-server on
 * PostgreSQL, 2 API, 2 checkout-page and 2 worker processes, each request to the next process of its
 * role). Whole sessions, as customers make them over HTTP (create → page → code → pay → the merchant's
 * success page, a share abandoned at the card step), arrive open-loop: at 20 % of the capacity the same
 * run measured first, then a burst at 4× that (80 %) during which a worker is SIGKILLed and, later,
 * temporal-server is stopped and started again on its databases, then back to 20 %.
 */

const PEAK_TASK_QUEUE = 'peak';
/** The timeline's step: pay → redirect and the cores' load, by this many seconds. */
const TIMELINE_STEP_S = 10;

export interface PeakSettings {
  /** Closed-loop capacity measurement before the open loop. */
  capacityS: number;
  capacityConcurrency: number;
  beforeS: number;
  burstS: number;
  afterS: number;
  /** Base arrival rate as a share of the capacity, and the burst's multiple of it. */
  baseShare: number;
  burstFactor: number;
  /** Share of sessions whose customer leaves at the card step (they end abandoned at expiry). */
  abandonShare: number;
  /** Seconds into the burst when a worker is SIGKILLed; it is replaced `workerDownS` later, as an orchestrator would. */
  workerKillAtS: number;
  workerDownS: number;
  /** Seconds into the burst when temporal-server is restarted. */
  temporalRestartAtS: number;
  /**
   * The burst's figures leave out the pays a fault reached: in flight at the fault, or clicked within
   * this long after it. Those are the fault window's.
   */
  faultWindowS: number;
  /** Session lifetime of the roles: abandoned sessions expire within the run. */
  lifetimeS: number;
  seed: number;
}

export const PEAK_FULL: Omit<PeakSettings, 'seed'> = {
  capacityS: 120,
  capacityConcurrency: 32,
  beforeS: 120,
  burstS: 180,
  afterS: 120,
  baseShare: 0.2,
  burstFactor: 4,
  abandonShare: 0.2,
  workerKillAtS: 30,
  workerDownS: 10,
  temporalRestartAtS: 100,
  faultWindowS: 60,
  lifetimeS: 180,
};

/** `--peak --quick`: the same run in about six minutes, with 20 s fault windows; its figures say nothing about targets. */
export const PEAK_QUICK: Omit<PeakSettings, 'seed'> = {
  ...PEAK_FULL,
  capacityS: 20,
  beforeS: 20,
  burstS: 60,
  afterS: 20,
  workerKillAtS: 8,
  temporalRestartAtS: 32,
  faultWindowS: 20,
  lifetimeS: 90,
};

export interface PeakPhase {
  sessions: number;
  pays: number;
  payRedirectP50Ms: number;
  payRedirectP99Ms: number;
  payToWebhookP99Ms: number;
}

export interface PeakFaultWindow {
  fault: string;
  atS: number;
  pays: number;
  payRedirectP50Ms: number;
  payRedirectP99Ms: number;
  payRedirectMaxMs: number;
  payToWebhookP99Ms: number;
}

export interface PeakFigures {
  topology: string;
  quick: boolean;
  seed: number;
  settings: Omit<PeakSettings, 'seed'>;
  sessions: number;
  capacityPerMinute: number;
  basePerMinute: number;
  burstPerMinute: number;
  /**
   * Sessions not in a right end: a customer sent to the success page must end paid with its `order_created`
   * verified at the merchant, one who left abandoned with its `order_abandoned`, one whose pay the stack
   * failed either of the two; ledger and event must agree.
   */
  lost: number;
  /**
   * Create-cart requests answered 503 OVERLOADED over the whole run (capacity and open loop): new
   * sessions the API made wait so the customers already on the page went first. The merchant retries
   * each after its Retry-After; a session never admitted is neither served nor lost. Absent from runs
   * before admission (docs/decisions/admission.md).
   */
  shedCreates?: number;
  /** Customers the stack failed (a request unanswered for 2 minutes, no success page 3 minutes after Pay), by the step they were at; their sessions still count in `lost` if they did not end right. */
  customerFailures: Record<string, number>;
  maxChargesPerCart: number;
  /** Seconds from the open loop's start. */
  faults: Array<{ fault: string; atS: number; tookS: number }>;
  phases: { before: PeakPhase; burst: PeakPhase; after: PeakPhase };
  faultWindows: PeakFaultWindow[];
  /** The burst's pay → redirect p99, outside the fault windows. */
  payRedirectP99Ms: number;
  /** After the burst, until the last final event due by its end (order_created at the pay, order_abandoned at expiry) reached the merchant. */
  drainS: number | null;
  /**
   * Pay → redirect by 10 s of pay clicks, for the chart, with the share of all cores busy in those
   * 10 s (whoever used them, the bench's customers too; absent from runs before it was sampled).
   */
  timeline: Array<{ atS: number; pays: number; payRedirectP50Ms: number; payRedirectP99Ms: number; machineBusyPct?: number }>;
  phaseBoundsS: { burstStart: number; burstEnd: number; end: number };
}

interface SessionRecord {
  kind: 'paid' | 'abandoned';
  cartId?: string;
  arrivedAt: number;
  payClickAt?: number;
  redirectMs?: number;
  error?: string;
  /** Where the customer is, for the progress line. */
  stage: string;
}

/** A small seeded generator (mulberry32), so a seed repeats a run's arrivals and mix. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Every 15 s while `records` run: how many customers are at each stage. */
function progress(records: SessionRecord[], log: (line: string) => void, label: string) {
  const timer = setInterval(() => {
    const stages: Record<string, number> = {};
    for (const r of records) stages[r.error ? 'failed' : r.stage] = (stages[r.error ? 'failed' : r.stage] ?? 0) + 1;
    log(`  ${label}: ${JSON.stringify(stages)}`);
  }, 15_000);
  return () => clearInterval(timer);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export interface PeakRoles {
  apis: Role[];
  webs: Role[];
  workers: Role[];
  /** Replaces a killed worker with a new process on the same task queue. */
  startWorker: () => Promise<Role>;
  stop: () => Promise<void>;
}

/** 2 API, 2 page and 2 worker processes on one task queue, as the README's Scaling section runs them. */
export async function startPeakRoles(stack: BenchStack, taskQueue: string, lifetimeS: number): Promise<PeakRoles> {
  const [api1, api2, web1, web2] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const common = {
    TEMPORAL_TASK_QUEUE: taskQueue,
    SESSION_LIFETIME_SECONDS: String(lifetimeS),
    API_BASE_URL: `http://127.0.0.1:${api1}`,
    CHECKOUT_BASE_URL: `http://127.0.0.1:${web1}`,
  };
  let workerCount = 0;
  const startWorker = async () => {
    const n = ++workerCount;
    // Each worker serves its /metrics and the SDK's exporter on ports of its own.
    const env = { ...common, WORKER_METRICS_PORT: String(await freePort()), TEMPORAL_SDK_METRICS_ADDRESS: `127.0.0.1:${await freePort()}` };
    return stack.startRole(`worker-${n}`, 'worker/main.ts', env, { taskQueue });
  };
  const startHttp = (role: 'api' | 'web', n: number, port: number) =>
    stack.startRole(
      `${role}-${n}`,
      `${role}/main.ts`,
      { ...common, [role === 'api' ? 'API_PORT' : 'WEB_PORT']: String(port) },
      {
        http: `http://127.0.0.1:${port}${role === 'api' ? '/healthz' : '/'}`,
      },
    );
  const workers = [await startWorker(), await startWorker()];
  const [apis, webs] = await Promise.all([
    Promise.all([startHttp('api', 1, api1), startHttp('api', 2, api2)]),
    Promise.all([startHttp('web', 1, web1), startHttp('web', 2, web2)]),
  ]);
  return {
    apis,
    webs,
    workers,
    startWorker,
    async stop() {
      await Promise.allSettled([...apis, ...webs].map((r) => r.stop()));
      await Promise.allSettled(workers.map((w) => w.stop()));
    },
  };
}

/** A browser gives up on a request that does not answer; so does the customer here, and tries again. */
const REQUEST_TIMEOUT_MS = 60_000;

/** Retries what a customer's browser retries (a 5xx, a refused connection, no answer) for up to `limitMs`, a second apart. */
async function retrying(what: string, request: () => Promise<Response>, limitMs = 120_000): Promise<Response> {
  const giveUpAt = performance.now() + limitMs;
  for (;;) {
    try {
      const res = await request();
      if (res.status < 500) return res;
      await res.arrayBuffer();
      if (performance.now() > giveUpAt) throw new Error(`${what}: ${res.status}`);
    } catch (err) {
      if (performance.now() > giveUpAt) throw err;
    }
    await sleep(1_000);
  }
}

/** The `code` of an error envelope; undefined for any other body. */
function codeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

/** A session the API never admitted: each create-cart was shed for as long as the merchant kept trying. */
class NeverAdmitted extends Error {}

/**
 * Create-cart as a merchant's server makes it: a 503 OVERLOADED is counted and sent again after its
 * Retry-After, as the answer asks, for up to `limitMs`; any other answer is the caller's.
 */
async function admittedCreate(request: () => Promise<Response>, onShed: () => void, limitMs = 120_000): Promise<Response> {
  const giveUpAt = performance.now() + limitMs;
  for (;;) {
    const res = await request();
    if (res.status !== 503) return res;
    const text = await res.text();
    if (codeOf(text) !== 'OVERLOADED') return new Response(text, { status: res.status, headers: res.headers });
    onShed();
    if (performance.now() > giveUpAt) throw new NeverAdmitted(`create-cart shed for ${limitMs / 1000} s`);
    await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
  }
}

/**
 * One customer over HTTP, each request to the next process of its role: the merchant creates the cart,
 * the customer opens the page, gives an email, types the sandbox code and either leaves or pays; a pay
 * ends at the merchant's success page, following the page's redirects and its "processing" page.
 */
function customerOf(options: { apiUrl: () => string; webUrl: () => string; platformUuid: string; storeUrl: string; sandboxOtp: string; onShed: () => void }) {
  const merchantUrls = { successUrl: `${options.storeUrl}/ok`, failureUrl: `${options.storeUrl}/ko` };
  return async (record: SessionRecord): Promise<void> => {
    record.stage = 'create';
    const create = () =>
      fetch(`${options.apiUrl()}/v2/public/api/cart/`, {
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: cartRequestBody(options.platformUuid, merchantUrls),
      });
    let created: Response;
    try {
      created = await retrying('create-cart', () => admittedCreate(create, options.onShed));
    } catch (err) {
      if (!(err instanceof NeverAdmitted)) throw err;
      // Made to wait, not failed: the merchant tells its shopper to come back later.
      record.stage = 'never admitted';
      return;
    }
    if (created.status !== 200) throw new Error(`create-cart answered ${created.status}`);
    const cartId = ((await created.json()) as { data: { cartId: string } }).data.cartId;
    record.cartId = cartId;

    let cookie = '';
    const get = async (path: string) => {
      const res = await retrying('page', () =>
        fetch(`${options.webUrl()}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), redirect: 'manual', headers: cookie ? { cookie } : {} }),
      );
      cookie = withCookies(cookie, res.headers.getSetCookie());
      return res;
    };
    record.stage = 'page';
    const first = await get(`/?token=${cartId}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await first.text())?.[1];
    if (!csrf) throw new Error(`the page of ${cartId} has no form`);
    // The binding a verified code gives comes with the answer to a post: kept, as a browser keeps it.
    const post = (path: string, fields: Record<string, string>) =>
      retrying(path, async () => {
        const web = options.webUrl();
        const res = await fetch(`${web}${path}`, {
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: web, cookie },
          body: new URLSearchParams({ token: cartId, csrf, ...fields }),
        });
        cookie = withCookies(cookie, res.headers.getSetCookie());
        return res;
      });
    /** Follows the page's redirects within the checkout; true once it sends the customer to the merchant's success page. */
    const follow = async (res: Response): Promise<boolean> => {
      for (;;) {
        const location = res.headers.get('location');
        await res.arrayBuffer();
        if (location?.startsWith(merchantUrls.successUrl)) return true;
        if (!location?.startsWith('/')) return false;
        res = await get(location);
      }
    };
    record.stage = 'contact';
    await follow(await post('/contact', { contact: 'peak@example.com' }));
    record.stage = 'code';
    await follow(await post('/code', { code: options.sandboxOtp }));
    record.stage = 'left';
    if (record.kind === 'abandoned') return;
    record.stage = 'pay';

    record.payClickAt = performance.now();
    const card = { number: '4111 1111 1111 1111', expiry: '12/30', cvv: '123' };
    // The page shows "processing" for a payment that outlasts its wait, and polls: as the customer's browser does, until the success page.
    let landed = await follow(await post('/card', card));
    while (!landed) {
      if (performance.now() - record.payClickAt > 180_000) throw new Error(`${cartId}: no success page 180 s after Pay`);
      await sleep(1_000);
      // What the "processing" page polls: it sends the customer on once the payment has its outcome.
      landed = await follow(await get(`/status?token=${cartId}`));
    }
    record.redirectMs = performance.now() - record.payClickAt;
    record.stage = 'landed';
  };
}

function phaseOf(records: SessionRecord[], receiver: VerifyingReceiver): PeakPhase {
  const pays = records.filter((r) => r.redirectMs !== undefined);
  const redirects = pays.map((r) => r.redirectMs!).sort((a, b) => a - b);
  const toWebhook = pays
    .map((r) => receiver.delivered('order_created', r.cartId!))
    .map((d, i) => (d ? d.at - pays[i]!.payClickAt! : NaN))
    .filter((ms) => !Number.isNaN(ms))
    .sort((a, b) => a - b);
  return {
    sessions: records.length,
    pays: pays.length,
    payRedirectP50Ms: round(quantile(redirects, 0.5)),
    payRedirectP99Ms: round(quantile(redirects, 0.99)),
    payToWebhookP99Ms: round(quantile(toWebhook, 0.99)),
  };
}

/** Each cart's charges: the sandbox acquirer's approved charge under the cart's key, and the one the ledger names, when they differ. */
async function maxChargesPerCart(db: Db, cartIds: string[]): Promise<number> {
  const [row] = await db<{ most: number | null }[]>`
    select max(n)::int as most from (
      select count(distinct charge)::int as n from (
        select idempotency_key as cart_id, charge_id as charge from sandbox_charges where idempotency_key = any(${cartIds})
        union all
        select cart_id, payment_reference from carts where cart_id = any(${cartIds}) and payment_reference is not null
      ) charges group by cart_id
    ) per_cart`;
  return row?.most ?? 0;
}

export async function measurePeak(
  deps: { stack: BenchStack; db: Db; receiver: VerifyingReceiver; platformUuid: string; sandboxOtp: string; topology: string; log: (line: string) => void },
  settings: PeakSettings,
  roles: PeakRoles,
  quick: boolean,
): Promise<PeakFigures> {
  const { stack, db, receiver, log } = deps;
  if (!stack.restartTemporal) throw new Error('--peak restarts temporal-server: run it on --topology server, on a temporal-server the bench starts itself');
  const rand = random(settings.seed);
  let apiTurn = 0;
  let webTurn = 0;
  let shedCreates = 0;
  const customer = customerOf({
    onShed: () => shedCreates++,
    apiUrl: () => roles.apis[apiTurn++ % roles.apis.length]!.url!,
    webUrl: () => roles.webs[webTurn++ % roles.webs.length]!.url!,
    platformUuid: deps.platformUuid,
    storeUrl: receiver.storeUrl,
    sandboxOtp: deps.sandboxOtp,
  });

  // Capacity: whole paid sessions, closed-loop, as many at once as the other scenarios' clients.
  log(`peak: capacity, ${settings.capacityConcurrency} customers paying one after another for ${settings.capacityS} s…`);
  const capacityEnd = performance.now() + settings.capacityS * 1000;
  let completed = 0;
  const capacityRecords: SessionRecord[] = [];
  const stopCapacityProgress = progress(capacityRecords, log, 'capacity');
  await Promise.all(
    Array.from({ length: settings.capacityConcurrency }, async () => {
      while (performance.now() < capacityEnd) {
        const record: SessionRecord = { kind: 'paid', arrivedAt: performance.now(), stage: 'arrived' };
        capacityRecords.push(record);
        await customer(record).then(
          // A customer never admitted resolves too, without a payment: only the paid count.
          () => (record.redirectMs === undefined ? undefined : completed++),
          (err: unknown) => {
            record.error = (err as Error).message;
            log(`  capacity session failed: ${record.error}`);
          },
        );
      }
    }),
  );
  stopCapacityProgress();
  const capacityPerMinute = round((completed / settings.capacityS) * 60);
  const basePerMinute = capacityPerMinute * settings.baseShare;
  const burstPerMinute = basePerMinute * settings.burstFactor;
  log(`  capacity ${capacityPerMinute}/min: base ${round(basePerMinute)}/min, burst ${round(burstPerMinute)}/min`);
  // The capacity run's payments settle before the open loop starts.
  await sleep(5_000);

  const t0 = performance.now();
  const at = (s: number) => t0 + s * 1000;
  const burstStartS = settings.beforeS;
  const burstEndS = burstStartS + settings.burstS;
  const endS = burstEndS + settings.afterS;
  const records: SessionRecord[] = [];
  const running: Array<Promise<void>> = [];
  const faults: PeakFigures['faults'] = [];

  const faultsDone = (async () => {
    await sleep(at(burstStartS + settings.workerKillAtS) - performance.now());
    const victim = roles.workers.shift()!;
    const killedAt = performance.now();
    log(`  fault: ${victim.name} SIGKILLed`);
    await victim.kill();
    await sleep(settings.workerDownS * 1000);
    roles.workers.push(await roles.startWorker());
    faults.push({
      fault: `${victim.name} SIGKILLed, replaced ${settings.workerDownS} s later`,
      atS: round((killedAt - t0) / 1000),
      tookS: round((performance.now() - killedAt) / 1000),
    });

    await sleep(at(burstStartS + settings.temporalRestartAtS) - performance.now());
    const restartedAt = performance.now();
    log('  fault: temporal-server restarted');
    await stack.restartTemporal!();
    faults.push({
      fault: 'temporal-server stopped and started again on its databases',
      atS: round((restartedAt - t0) / 1000),
      tookS: round((performance.now() - restartedAt) / 1000),
    });
  })();
  // Awaited after the open loop; until then a failure must not count as unhandled.
  faultsDone.catch(() => {});

  const machineBusyPct: number[] = [];
  const busySampled = (async () => {
    for (let s = 0; s < endS; s += TIMELINE_STEP_S) {
      const meter = cpuMeter({});
      await sleep(at(s + TIMELINE_STEP_S) - performance.now());
      machineBusyPct.push(meter.stop().machineBusyPct);
    }
  })();

  const stopProgress = progress(records, log, 'open loop');
  log(
    `peak: open loop, ${settings.beforeS} s at ${round(basePerMinute)}/min, ${settings.burstS} s at ${round(burstPerMinute)}/min, ${settings.afterS} s at ${round(basePerMinute)}/min…`,
  );
  let next = t0;
  for (;;) {
    const nowS = (next - t0) / 1000;
    if (nowS >= endS) break;
    const perMinute = nowS >= burstStartS && nowS < burstEndS ? burstPerMinute : basePerMinute;
    await sleep(next - performance.now());
    const record: SessionRecord = { kind: rand() < settings.abandonShare ? 'abandoned' : 'paid', arrivedAt: performance.now(), stage: 'arrived' };
    records.push(record);
    running.push(
      customer(record).catch((err: unknown) => {
        record.error = (err as Error).message;
      }),
    );
    // Poisson arrivals: exponential gaps at the phase's rate.
    next += (-Math.log(1 - rand()) * 60_000) / perMinute;
  }
  await faultsDone;
  await busySampled;
  await Promise.all(running);
  stopProgress();
  log(`  ${records.length} sessions arrived; waiting for every final event…`);

  // Every session's final event at the merchant: order_created for a payment, order_abandoned at expiry.
  // A customer whose pay did not finish (the page failed them) may have paid or not: either end is right.
  const created = records.filter((r) => r.cartId);
  const ends = (r: SessionRecord): Array<'order_created' | 'order_abandoned'> =>
    r.redirectMs !== undefined ? ['order_created'] : r.kind === 'abandoned' ? ['order_abandoned'] : ['order_created', 'order_abandoned'];
  const endOf = (r: SessionRecord) => ends(r).find((event) => receiver.delivered(event, r.cartId!));
  const waitUntil = performance.now() + (settings.lifetimeS + 300) * 1000;
  while (performance.now() < waitUntil && created.some((r) => !endOf(r))) await sleep(1_000);

  const ledger = new Map(
    (await db<{ cart_id: string; status: string }[]>`select cart_id, status from carts where cart_id = any(${created.map((r) => r.cartId!)})`).map((row) => [
      row.cart_id,
      row.status,
    ]),
  );
  const statusOf = { order_created: 'paid', order_abandoned: 'abandoned' } as const;
  const lost = created.filter((r) => {
    const end = endOf(r);
    return !end || ledger.get(r.cartId!) !== statusOf[end];
  });
  for (const r of lost.slice(0, 10)) log(`  lost: ${r.cartId} (${r.kind}) ${ledger.get(r.cartId!) ?? 'no row'} ${r.error ?? ''}`);
  const failed = records.filter((r) => r.error);
  for (const r of failed.slice(0, 10)) log(`  customer failed at ${r.stage}: ${r.cartId ?? 'no cart'} ${r.error}`);
  const finalEvent = (r: SessionRecord) => endOf(r) ?? ends(r)[0]!;

  const clickedS = (r: SessionRecord) => (r.payClickAt! - t0) / 1000;
  // A pay still unanswered when a fault struck waits through it, wherever its click fell (one clicked
  // 2 s before temporal-server stops waits out the outage); one never answered is in flight throughout.
  const answeredS = (r: SessionRecord) => clickedS(r) + (r.redirectMs ?? Infinity) / 1000;
  const reachedBy = (f: PeakFigures['faults'][number], r: SessionRecord) => clickedS(r) < f.atS + settings.faultWindowS && answeredS(r) >= f.atS;
  const inFaultWindow = (r: SessionRecord) => faults.some((f) => reachedBy(f, r));
  const paidRecords = created.filter((r) => r.payClickAt !== undefined);
  const arrivedIn = (from: number, to: number) => created.filter((r) => (r.arrivedAt - t0) / 1000 >= from && (r.arrivedAt - t0) / 1000 < to);
  const phase = (from: number, to: number, keep: (r: SessionRecord) => boolean = () => true) => {
    const paysIn = paidRecords.filter((r) => clickedS(r) >= from && clickedS(r) < to && keep(r));
    return { ...phaseOf(paysIn, receiver), sessions: arrivedIn(from, to).length };
  };
  const burst = phase(burstStartS, burstEndS, (r) => !inFaultWindow(r));
  const faultWindows = faults.map((f) => {
    const inWindow = paidRecords.filter((r) => reachedBy(f, r));
    return {
      fault: f.fault,
      atS: f.atS,
      ...phaseOf(inWindow, receiver),
      payRedirectMaxMs: round(Math.max(0, ...inWindow.map((r) => r.redirectMs ?? 0))),
    };
  });

  // Due: a payment's order_created at its click, an abandoned session's order_abandoned at its expiry.
  const dueAtS = (r: SessionRecord) => (r.kind === 'paid' ? clickedS(r) : (r.arrivedAt - t0) / 1000 + settings.lifetimeS);
  const dueByBurstEnd = created.filter((r) => (r.kind === 'abandoned' || r.payClickAt !== undefined) && dueAtS(r) < burstEndS);
  const deliveredS = dueByBurstEnd.map((r) => {
    const d = receiver.delivered(finalEvent(r), r.cartId!);
    return d ? (d.at - t0) / 1000 : Infinity;
  });
  const latest = Math.max(0, ...deliveredS.map((s) => s - burstEndS));
  // JSON has no Infinity: a final event that never came leaves the drain unmeasured (null), and `lost` says why.
  const drainS = Number.isFinite(latest) ? round(latest) : null;

  const timeline: PeakFigures['timeline'] = [];
  for (let s = 0; s < endS; s += TIMELINE_STEP_S) {
    const bucket = paidRecords
      .filter((r) => clickedS(r) >= s && clickedS(r) < s + TIMELINE_STEP_S && r.redirectMs !== undefined)
      .map((r) => r.redirectMs!)
      .sort((a, b) => a - b);
    timeline.push({
      atS: s,
      pays: bucket.length,
      payRedirectP50Ms: round(quantile(bucket, 0.5)),
      payRedirectP99Ms: round(quantile(bucket, 0.99)),
      machineBusyPct: machineBusyPct[s / TIMELINE_STEP_S]!,
    });
  }

  const { seed, ...rest } = settings;
  return {
    topology: deps.topology,
    quick,
    seed,
    settings: rest,
    sessions: records.length,
    capacityPerMinute,
    basePerMinute: round(basePerMinute),
    burstPerMinute: round(burstPerMinute),
    lost: lost.length,
    shedCreates,
    customerFailures: failed.reduce<Record<string, number>>((byStage, r) => ({ ...byStage, [r.stage]: (byStage[r.stage] ?? 0) + 1 }), {}),
    maxChargesPerCart: await maxChargesPerCart(
      db,
      created.map((r) => r.cartId!),
    ),
    faults,
    phases: { before: phase(0, burstStartS), burst, after: phase(burstEndS, endS) },
    faultWindows,
    payRedirectP99Ms: burst.payRedirectP99Ms,
    drainS,
    timeline,
    phaseBoundsS: { burstStart: burstStartS, burstEnd: burstEndS, end: endS },
  };
}

/** The whole `--peak` run on a stack of its own: returns its figures; the caller writes them. */
export async function runPeakBench(options: { topology: TemporalTopology; quick: boolean; seed: number; log: (line: string) => void }): Promise<PeakFigures> {
  const { log } = options;
  const settings: PeakSettings = { ...(options.quick ? PEAK_QUICK : PEAK_FULL), seed: options.seed };
  log(
    `peak: starting PostgreSQL, ${options.topology === 'server' ? 'temporal-server' : 'Temporal'} and 2 API, 2 page and 2 worker processes (seed ${settings.seed})…`,
  );
  // Six processes' pools (10 each), the bench's, a replaced worker's and temporal-server's four services'
  // (up to 24 each, scripts/temporal-sql-server.ts) exceed PostgreSQL's default 100: a quick
  // run stalled on "too many clients already".
  const stack = await startBenchStack(() => {}, options.topology, { postgresMaxConnections: 300 });
  try {
    const roles = await startPeakRoles(stack, PEAK_TASK_QUEUE, settings.lifetimeS);
    const config = loadConfig({ ...stack.baseEnv, TEMPORAL_TASK_QUEUE: PEAK_TASK_QUEUE });
    const db = createDb(config.databaseUrl);
    const receiver = await startVerifyingReceiver();
    try {
      const merchant = await registerReceivingMerchant(receiver, { db, config }, 'Peak Store');
      return await measurePeak(
        { stack, db, receiver, platformUuid: merchant.platformUuid, sandboxOtp: config.sandboxOtp, topology: options.topology, log },
        settings,
        roles,
        options.quick,
      );
    } finally {
      await roles.stop();
      await receiver.close();
      await db.end();
    }
  } finally {
    await stack.stop();
  }
}
