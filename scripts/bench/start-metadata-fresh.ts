import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowStartOptions } from '@temporalio/client';
import { z } from 'zod';
import { searchAttributes } from '../../workflows/cart-session/messages.js';
import { sessionMetadata } from '../../workflows/cart-session/operator-details.js';
import { freePort } from '../free-port.js';
import { ensureTemporalCli } from '../temporal-cli.js';
import { startTemporalDevServer } from '../temporal-server.js';
import { median, round } from './load.js';
import { costRatio, measureInRounds, rateRatio } from './rounds.js';

/**
 * `npm run -s bench:start-metadata`: what each part of create-cart's operator metadata costs the dev
 * server, on a fresh dev server per measurement, in rounds that alternate the order. `--only
 * start-metadata` measures on the bench's one server, where every start leaves an open session behind
 * and the server slows as they pile up; here each side starts from the same empty server. Starts go to
 * a task queue no worker polls, so only the start and its records count: the dev server's CPU per start
 * (from /proc) and the rate, 32 at a time: each side's median, and its ratio to the bare start read in
 * the median round (./rounds.ts).
 */
const { values } = parseArgs({ options: { starts: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' } } });
const options = z.object({ starts: z.coerce.number().int().positive(), rounds: z.coerce.number().int().positive() }).parse(values);
const CONCURRENCY = 32;
/** /proc's unit of CPU time (USER_HZ), 100 on Linux. */
const CLOCK_TICKS_PER_SECOND = 100;

const operatorSearchAttributes = (): Partial<WorkflowStartOptions> => ({
  typedSearchAttributes: [
    { key: searchAttributes.merchantId, value: randomUUID() },
    { key: searchAttributes.cartStatus, value: 'pending' },
    { key: searchAttributes.cartTotal, value: 100 },
    { key: searchAttributes.currency, value: 'EUR' },
  ],
});
const memo = { memo: { storeName: 'Bench Store' } };
const summaryAndDetails = sessionMetadata({ merchantName: 'Bench Merchant', environment: 'sandbox', amount: 100, currency: 'EUR', itemCount: 15 });
/** What each side adds to the start: nothing, each part alone, all of them as create-cart sends them. */
const metadata = {
  bare: () => ({}),
  searchAttributes: operatorSearchAttributes,
  memo: () => memo,
  summaryAndDetails: () => summaryAndDetails,
  all: () => ({ ...operatorSearchAttributes(), ...memo, ...summaryAndDetails }),
} satisfies Record<string, () => Partial<WorkflowStartOptions>>;
type Side = keyof typeof metadata;

const cli = await ensureTemporalCli();
const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

async function measure(side: Side): Promise<{ startsPerSec: number; serverCpuMsPerStart: number }> {
  const port = await freePort();
  const server = await startTemporalDevServer({ cli, port, fastUnsafeStorage: true });
  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  try {
    const serverPid = server.process.pid!;
    const client = new Client({ connection });
    const run = async (count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < count) await client.workflow.start('bare', { taskQueue: 'nobody', workflowId: randomUUID(), args: [{}], ...metadata[side]() });
        }),
      );
    };
    await run(Math.ceil(options.starts / 5));
    const [ticks, began] = [cpuTicks(serverPid), performance.now()];
    await run(options.starts);
    const seconds = (performance.now() - began) / 1000;
    // What the server does just after answering (its visibility record) counts too.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return {
      startsPerSec: Math.round(options.starts / seconds),
      serverCpuMsPerStart: round(((cpuTicks(serverPid) - ticks) * 1000) / CLOCK_TICKS_PER_SECOND / options.starts, 2),
    };
  } finally {
    await connection.close();
    await server.stop();
  }
}

const sides = Object.keys(metadata) as Side[];
const rounds = await measureInRounds(sides, options.rounds, async (side, pass) => {
  const figures = await measure(side);
  process.stderr.write(`round ${pass} ${side}: ${JSON.stringify(figures)}\n`);
  return figures;
});
const rate = (side: Side) => median(rounds.map((r) => r[side].startsPerSec));
const cpu = (side: Side) => median(rounds.map((r) => r[side].serverCpuMsPerStart));
const rateOverBare = (side: Side) =>
  rateRatio(
    rounds,
    (r) => r[side].startsPerSec,
    (r) => r.bare.startsPerSec,
  ).ratio;
const cpuOverBare = (side: Side) =>
  costRatio(
    rounds,
    (r) => r[side].serverCpuMsPerStart,
    (r) => r.bare.serverCpuMsPerStart,
  ).ratio;
process.stdout.write(
  `${JSON.stringify(
    {
      startsPerMeasurement: options.starts,
      rounds: options.rounds,
      startsPerSec: Object.fromEntries(sides.map((s) => [s, rate(s)])),
      serverCpuMsPerStart: Object.fromEntries(sides.map((s) => [s, cpu(s)])),
      rateOverBare: Object.fromEntries(sides.map((s) => [s, rateOverBare(s)])),
      serverCpuOverBare: Object.fromEntries(sides.map((s) => [s, cpuOverBare(s)])),
    },
    null,
    2,
  )}\n`,
);
