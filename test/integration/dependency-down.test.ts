import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { loadConfig, type Config } from '../../core/config.js';
import { createDb, type Db } from '../../core/db/client.js';
import { createLogger } from '../../core/logger.js';
import { registerMerchant } from '../../core/onboarding/registration.js';
import { connectTemporal, type Temporal } from '../../core/temporal/connection.js';
import { freePort } from '../../scripts/free-port.js';
import { startInfrastructure, type Infrastructure } from '../../scripts/infrastructure.js';
import { postCart, validCartRequest } from '../support/fixtures.js';

/**
 * Stops and restarts a PostgreSQL and a Temporal server of this file's own (never the run's shared
 * ones) under a running API, and checks that it answers 503 quickly and leaves nothing half-created.
 */
describe('create-cart when a dependency is down', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-deps-'));
  let postgresPort: number;
  let temporalPort: number;
  let postgres: Infrastructure;
  let temporalServer: Infrastructure;
  let config: Config;
  let db: Db;
  let temporal: Temporal;
  let apiUrl: string;
  let closeApi: () => Promise<void>;
  let platformUuid: string;

  // Each half started on its own (the other given by address) so that each can be stopped alone.
  const startTemporal = () =>
    startInfrastructure({
      dataDir: path.join(dataDir, 'temporal'),
      postgresPort: 0,
      temporalPort,
      persistentTemporal: false,
      databaseUrl: inject('databaseUrl'),
      log: () => {},
    });
  const startPostgres = () =>
    startInfrastructure({
      dataDir: path.join(dataDir, 'postgres'),
      postgresPort,
      temporalPort: 0,
      temporalAddress: `127.0.0.1:${temporalPort}`,
      persistentTemporal: false,
      log: () => {},
    });

  beforeAll(async () => {
    // PostgreSQL runs as the `postgres` user when we are root: it must be able to reach its folder.
    chmodSync(dataDir, 0o755);
    [postgresPort, temporalPort] = [await freePort(), await freePort()];
    [temporalServer, postgres] = await Promise.all([startTemporal(), startPostgres()]);
    config = loadConfig({
      CHECKOUT_ENV: 'sandbox',
      DATABASE_URL: postgres.databaseUrl,
      TEMPORAL_ADDRESS: temporalServer.temporalAddress,
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      TEMPORAL_TASK_QUEUE: 'dependency-down',
      LOG_LEVEL: 'silent',
    });
    db = createDb(config.databaseUrl);
    temporal = connectTemporal(config);
    const app = createApiApp({ config, db, temporal, logger: createLogger({ level: 'silent', name: 'test' }) });
    await new Promise<void>((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        apiUrl = `http://127.0.0.1:${info.port}`;
        closeApi = () => new Promise((done) => server.close(() => done()));
        resolve();
      });
    });
    platformUuid = (await registerMerchant(db, config.keyring, { name: 'Deps Store', environment: 'sandbox', webhookUrl: 'https://store.example/hooks' }))
      .platformUuid;
  });

  afterAll(async () => {
    await closeApi?.();
    await Promise.allSettled([db?.end({ timeout: 1 }), temporal?.close()]);
    await Promise.allSettled([postgres?.stop(), temporalServer?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ledgerRows = async () => (await db<{ n: number }[]>`select count(*)::int as n from carts`)[0]!.n;
  async function sessions(status?: string): Promise<string[]> {
    const ids: string[] = [];
    const query = `MerchantId = '${platformUuid}'${status ? ` AND ExecutionStatus = '${status}'` : ''}`;
    for await (const w of temporal.client.workflow.list({ query })) ids.push(w.workflowId);
    return ids;
  }
  async function expect503(res: Response) {
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', errors: [] });
  }
  /** After a restart the API reconnects on its own; give it a few seconds. */
  async function eventually200(): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await postCart(apiUrl, validCartRequest(platformUuid));
      if (res.status === 200) return;
      if (Date.now() > deadline) throw new Error(`still ${res.status} after the restart`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('creates a cart while both are up', async () => {
    expect((await postCart(apiUrl, validCartRequest(platformUuid))).status).toBe(200);
  });

  it("keeps a started cart when storing the key's response fails after the start: the merchant gets it, its row has its session", async () => {
    // At commit, this deferred trigger kills the backend that runs it: a real lost connection, after
    // Temporal has accepted the workflow (the key's response is stored once the start has succeeded).
    await db.unsafe(`
      create function kill_own_backend() returns trigger language plpgsql as $$
      begin perform pg_terminate_backend(pg_backend_pid()); return null; end $$;
      create constraint trigger kill_at_commit after update on idempotency_keys deferrable initially deferred
        for each row when (new.key = 'commit-killer-0001' and new.response is not null) execute function kill_own_backend();`);
    try {
      const rowsBefore = await ledgerRows();
      const res = await postCart(apiUrl, validCartRequest(platformUuid), { 'idempotency-key': 'commit-killer-0001' });
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as { data: { cartId: string } };
      expect(await ledgerRows()).toBe(rowsBefore + 1);
      expect(await sessions('Running')).toContain(`cart-${data.cartId}`);
      expect(await sessions('Terminated')).toEqual([]);
      // The key's claim was never answered: a retry with it waits for the claim to lapse, then creates anew.
      expect(await db`select response from idempotency_keys where key = 'commit-killer-0001'`).toEqual([{ response: null }]);
    } finally {
      await db.unsafe('drop trigger kill_at_commit on idempotency_keys; drop function kill_own_backend();');
    }
  });

  it('answers an unexpected failure with INTERNAL_ERROR and tells nothing about it', async () => {
    await db`alter table idempotency_keys rename to idempotency_keys_away`;
    try {
      const res = await postCart(apiUrl, validCartRequest(platformUuid), { 'idempotency-key': 'unexpected-0001' });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'INTERNAL_ERROR', errors: [], requestId: res.headers.get('x-request-id') });
      expect(text).not.toMatch(/idempotency_keys|relation|postgres|at .*\.ts|stack/i);
    } finally {
      await db`alter table idempotency_keys_away rename to idempotency_keys`;
    }
  });

  it('answers 503 within the start deadline when Temporal is down, with no ledger row; recovers when it is back', async () => {
    await temporalServer.stop();
    try {
      const rowsBefore = await ledgerRows();
      const started = performance.now();
      await expect503(await postCart(apiUrl, validCartRequest(platformUuid), { 'idempotency-key': 'temporal-down-0001' }));
      const elapsedMs = performance.now() - started;
      console.info(`create-cart with Temporal down answered 503 in ${Math.round(elapsedMs)} ms`);
      // The 3 s start deadline plus slack for two busy cores (measured 3.6–5.4 s under the suite's
      // load): bounded, where an unbounded call would wait as long as Temporal stays down.
      expect(elapsedMs).toBeLessThan(8_000);
      expect(await ledgerRows()).toBe(rowsBefore);
      expect(await db`select key from idempotency_keys where key = 'temporal-down-0001'`).toEqual([]);
    } finally {
      temporalServer = await startTemporal();
    }
    await eventually200();
    // The key of the failed attempt was not consumed: the retry creates the cart.
    const retry = await postCart(apiUrl, validCartRequest(platformUuid), { 'idempotency-key': 'temporal-down-0001' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 503 when PostgreSQL is down, without starting a session; recovers when it is back', async () => {
    await expect.poll(() => sessions(), { timeout: 10_000 }).toHaveLength(2);
    await postgres.stop();
    const started = performance.now();
    await expect503(await postCart(apiUrl, validCartRequest(platformUuid)));
    console.info(`create-cart with PostgreSQL down answered 503 in ${Math.round(performance.now() - started)} ms`);
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(await sessions()).toHaveLength(2);

    postgres = await startPostgres();
    await eventually200();
  });
});
