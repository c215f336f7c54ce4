import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { connectTemporal } from '../../core/temporal/connection.js';
import { temporalDataConverter } from '../../core/temporal/codec.js';
import { createKeyring } from '../../core/crypto.js';
import { startCartSession } from '../../workflows/cart-session/client.js';
import { freePort } from '../free-port.js';
import { ensureTemporalCli } from '../temporal-cli.js';
import { startTemporalDevServer } from '../temporal-server.js';
import { cpuMeter } from './cpu.js';
import { round } from './load.js';
import { costRatio, measureInRounds, rateRatio } from './rounds.js';

/**
 * `npm run -s bench:native-client`: create-cart's start (startCartSession: the operators' metadata and
 * the payload codec) through the API's client over grpc-js (core/temporal/connection.ts,
 * `connectTemporal`) against a client over the SDK's NativeConnection, which a worker uses. Each side on
 * a fresh dev server of its own, 32 starts at a time to a task queue no worker polls, in rounds that
 * alternate the order; each ratio is read in its median round (./rounds.ts). The client's CPU is this
 * process's, every thread counted: the native connection's own threads too.
 */
const { values } = parseArgs({ options: { starts: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' } } });
const options = z.object({ starts: z.coerce.number().int().positive(), rounds: z.coerce.number().int().positive() }).parse(values);
const CONCURRENCY = 32;
/** The bench's own keys: the codec costs what it costs in the API, whatever the key. */
const keyring = createKeyring([{ id: 'k0', key: randomBytes(32) }]);
const cli = await ensureTemporalCli();
const sides = ['grpcJs', 'native'] as const;
type Side = (typeof sides)[number];

/** A client as the API builds it, or one over a NativeConnection with the same data converter. */
async function connect(side: Side, address: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const config = { temporal: { address, namespace: 'default', taskQueue: 'nobody', eagerStart: false, tls: undefined, apiKey: undefined }, keyring };
  if (side === 'grpcJs') {
    const temporal = connectTemporal(config);
    return { client: temporal.client, close: () => temporal.close() };
  }
  const connection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace: 'default', dataConverter: temporalDataConverter(keyring) });
  return { client, close: () => connection.close() };
}

async function measure(side: Side): Promise<{ startsPerSec: number; clientCpuMsPerStart: number; serverCpuMsPerStart: number }> {
  const port = await freePort();
  const server = await startTemporalDevServer({ cli, port, fastUnsafeStorage: true });
  const { client, close } = await connect(side, `127.0.0.1:${port}`);
  try {
    const run = async (count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < count) {
            await startCartSession(client, {
              taskQueue: 'nobody',
              storeName: 'Bench Store',
              input: {
                cartId: randomUUID(),
                platformUuid: randomUUID(),
                storeName: 'Bench Store',
                amount: 100,
                currency: 'EUR',
                expiresOn: new Date(Date.now() + 2_700_000).toISOString(),
                lifetimeMs: 2_700_000,
                paymentResolutionMs: 30_000,
              },
              facts: { merchantName: 'Bench Merchant', environment: 'sandbox', itemCount: 15, captureMethod: 'automatic' },
            });
          }
        }),
      );
    };
    await run(Math.ceil(options.starts / 5));
    const meter = cpuMeter({ server: { pid: server.process.pid } });
    const began = performance.now();
    await run(options.starts);
    const seconds = (performance.now() - began) / 1000;
    // What the server does just after answering (its visibility record) counts too; the client is idle by then.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Per start to the µs: cpuMsPer's tenth of a millisecond is coarser than the difference measured.
    const perStart = (cpuSeconds: number | undefined) => round(((cpuSeconds ?? 0) * 1000) / options.starts, 3);
    const { cpuSeconds } = meter.stop();
    return {
      startsPerSec: Math.round(options.starts / seconds),
      clientCpuMsPerStart: perStart(cpuSeconds.bench),
      serverCpuMsPerStart: perStart(cpuSeconds.server),
    };
  } finally {
    await close();
    await server.stop();
  }
}

const rounds = await measureInRounds(sides, options.rounds, async (side, pass) => {
  const figures = await measure(side);
  process.stderr.write(`round ${pass} ${side}: ${JSON.stringify(figures)}\n`);
  return figures;
});
process.stdout.write(
  `${JSON.stringify(
    {
      startsPerMeasurement: options.starts,
      rounds,
      nativeOverGrpcJs: {
        clientCpuMsPerStart: costRatio(
          rounds,
          (r) => r.native.clientCpuMsPerStart,
          (r) => r.grpcJs.clientCpuMsPerStart,
        ),
        serverCpuMsPerStart: costRatio(
          rounds,
          (r) => r.native.serverCpuMsPerStart,
          (r) => r.grpcJs.serverCpuMsPerStart,
        ),
        startsPerSec: rateRatio(
          rounds,
          (r) => r.native.startsPerSec,
          (r) => r.grpcJs.startsPerSec,
        ),
      },
    },
    null,
    2,
  )}\n`,
);
