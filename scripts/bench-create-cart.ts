import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { createApiApp } from '../api/app.js';
import { loadConfig } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { listen } from '../core/http-service.js';
import { createLogger } from '../core/logger.js';
import { registerMerchant } from '../core/merchants/merchants.js';
import { connectTemporal, temporalConnectionOptions } from '../core/temporal.js';
import { createWebApp } from '../web/app.js';
import { createCartWorker } from '../worker/create-worker.js';
import { freePort } from './free-port.js';
import { startInfrastructure } from './infrastructure.js';

/**
 * `npm run bench`: create-cart and checkout-page latency on a private stack (real PostgreSQL and
 * Temporal on free ports), sequential and concurrent. Prints medians and p95; figures, not verdicts.
 */
const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

Runtime.install({ shutdownSignals: [], logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } });
const dataDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-bench-'));
chmodSync(dataDir, 0o755);
const infrastructure = await startInfrastructure({
  dataDir,
  postgresPort: await freePort(),
  temporalPort: await freePort(),
  persistentTemporal: false,
  log: () => {},
});
const config = loadConfig({
  CHECKOUT_ENV: 'sandbox',
  DATABASE_URL: infrastructure.databaseUrl,
  TEMPORAL_ADDRESS: infrastructure.temporalAddress,
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_PLATFORM: '1000000',
  RATE_LIMIT_PER_CLIENT: '1000000',
  RATE_LIMIT_PER_PLATFORM_CLIENT: '1000000',
});
const logger = createLogger({ level: 'silent', name: 'bench' });
const db = createDb(config.databaseUrl);
const temporal = connectTemporal(config);
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
const worker = await createCartWorker({ config, db, logger, connection });
const running = worker.run();
const api = await listen(createApiApp({ config, db, temporal, logger }).fetch, { hostname: '127.0.0.1' });
const web = await listen(createWebApp({ config, db, temporal, logger }).fetch, { hostname: '127.0.0.1' });
const merchant = await registerMerchant(db, config.keyring, { name: 'Bench Store', environment: 'sandbox', webhookUrl: 'http://localhost:9/hooks' });

const body = JSON.stringify({
  cartObject: {
    store: { platformUuid: merchant.platformUuid, name: 'Bench Store', url: 'https://bench.example' },
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
      merchantUrls: { successUrl: 'https://bench.example/ok', failureUrl: 'https://bench.example/ko' },
    },
  },
});

async function timed(fn: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const res = await fn();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return performance.now() - started;
}
const createCart = () => fetch(`${api.url}/v2/public/api/cart/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const report = (label: string, xs: number[], wallMs?: number) =>
  console.log(
    `${label.padEnd(34)} n=${xs.length}  median ${quantile(xs, 0.5).toFixed(1)} ms  p95 ${quantile(xs, 0.95).toFixed(1)} ms${wallMs ? `  ${((xs.length / wallMs) * 1000).toFixed(0)} req/s` : ''}`,
  );

try {
  for (let i = 0; i < 20; i++) await timed(createCart); // warm-up: JIT, connection pools, Temporal caches
  const sequential: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await timed(createCart));
  report('create cart, sequential', sequential);

  const concurrent: number[] = [];
  const wallStart = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = 0; i < SEQUENTIAL / CONCURRENCY; i++) concurrent.push(await timed(createCart));
    }),
  );
  report(`create cart, ${CONCURRENCY} concurrent`, concurrent, performance.now() - wallStart);

  const { data } = (await (await createCart()).json()) as { data: { cartId: string } };
  const page: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) page.push(await timed(() => fetch(`${web.url}/?token=${data.cartId}`)));
  report('checkout page render, sequential', page);
  console.log(`rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (api + web + worker in one process)`);
} finally {
  await Promise.all([api.close(), web.close()]);
  worker.shutdown();
  await running;
  await Promise.allSettled([connection.close(), temporal.close(), db.end()]);
  await infrastructure.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
