import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDb } from '../../core/db/client.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { freePort } from '../../scripts/free-port.js';
import { ensureTemporalCli } from '../../scripts/temporal-cli.js';
import { temporalTopologyFromEnv } from '../../scripts/infrastructure.js';
import { startTemporalDevServer } from '../../scripts/temporal-server.js';
import { ensureTemporalServer, startTemporalSqlServer } from '../../scripts/temporal-sql-server.js';
import { payUpdate, sendCodeUpdate, verifyCodeUpdate } from '../../workflows/cart-session/messages.js';
import { otpHash } from '../../core/checkout/otp/hash.js';
import { cartSessionDriver, ledgerRow, recordedEvents, type DrivenStack, type Session } from '../support/cart-session-driver.js';
import { stepOf, untilAnswered } from '../support/checkout-flow.js';
import { findLeaksInDatabase, findLeaksInFiles } from '../support/leak-scan.js';
import { useOwnDatabase } from '../support/own-database.js';
import { createProcessStack, TEST_WORKER, writeWorkflowBundle, type ProcessStack } from '../support/process-stack.js';
import { planOf, reliabilitySettings, reportFigures } from '../support/reliability.js';

const LIFETIME_SECONDS = 40;
/** How late an abandonment may come: the timer fires on the restarted server, then a workflow task runs. */
const ABANDON_SLACK_MS = 15_000;

/** A Temporal server of the suite's own that it stops and starts again on the same storage. */
interface OwnTemporal {
  address: string;
  stop: () => Promise<void>;
}

/**
 * The topology the run is on, restarted for real: the CLI's dev server on a database file of its
 * own, or (TEMPORAL_TOPOLOGY=server) production's temporal-server on two databases of its own on the
 * run's PostgreSQL, the process stopped and started again on them with the same configuration.
 */
function restartableTemporal(dataDir: string) {
  const topology = temporalTopologyFromEnv();
  const databases = { default: `temporal_restart_${randomUUID().replaceAll('-', '')}`, visibility: '' };
  databases.visibility = `${databases.default}_visibility`;
  const postgres = new URL(inject('databaseUrl'));
  return {
    title: topology === 'server' ? 'temporal-server restarted on its PostgreSQL databases' : 'Temporal dev server restarted on its database file',
    async start(cli: string, port: number): Promise<OwnTemporal> {
      if (topology === 'dev') {
        const server = await startTemporalDevServer({ cli, port, dbFile: path.join(dataDir, 'temporal.db') });
        return { address: server.address, stop: server.stop };
      }
      return startTemporalSqlServer({
        binary: await ensureTemporalServer(() => {}),
        cli,
        postgres: {
          host: postgres.hostname,
          port: Number(postgres.port),
          user: decodeURIComponent(postgres.username),
          password: decodeURIComponent(postgres.password),
        },
        port,
        dataDir: path.join(dataDir, 'temporal-server'),
        databases,
      });
    },
    /** The server's databases go with the suite (the dev server's file goes with its folder). */
    async dropStorage() {
      if (topology === 'dev') return;
      const admin = createDb(postgres.toString(), { max: 1 });
      try {
        for (const name of [databases.default, databases.visibility]) await admin.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * A Temporal server of this file's own, stopped and started again on its storage while sessions are
 * open. Each trial opens two sessions before its restart: one verified and waiting for its card,
 * paid after the restart from where it stood; one left alone, which must abandon when its 40 s are
 * up, restarts or not.
 */
describe('the Temporal server restarted on its storage', () => {
  const { seed, trials } = reliabilitySettings('temporal-restart');
  const database = useOwnDatabase('reliability_temporal');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-temporal-restart-'));
  const temporal = restartableTemporal(dataDir);
  let cli: string;
  let port: number;
  let server: OwnTemporal;
  let stack: ProcessStack;
  let driven: DrivenStack;
  let platformUuid: string;

  const startServer = async () => {
    server = await temporal.start(cli, port);
  };

  beforeAll(async () => {
    cli = await ensureTemporalCli(() => {});
    port = await freePort();
    await startServer();
    stack = createProcessStack({
      databaseUrl: database.url,
      temporalAddress: server.address,
      env: { TEST_WORKFLOW_BUNDLE: writeWorkflowBundle(), SESSION_LIFETIME_SECONDS: String(LIFETIME_SECONDS) },
    });
    const [api] = await Promise.all([stack.start('api', 'api'), stack.start('worker', 'worker', { entry: TEST_WORKER })]);
    driven = { ...stack, apiUrl: api.url };
    platformUuid = (await stack.createMerchant()).platformUuid;
  });
  afterAll(async () => {
    await stack?.stop();
    await server?.stop();
    await temporal.dropStorage();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps open sessions and their timers: paid after the restart, or abandoned on time', { timeout: 1_200_000 }, async () => {
    const plan = planOf(fc.record({ upForMs: fc.integer({ min: 500, max: 3_000 }), downForMs: fc.integer({ min: 0, max: 3_000 }) }), seed, trials);
    const driver = cartSessionDriver(driven, platformUuid);
    const toPay: Session[] = [];
    const toAbandon: Array<{ session: Session; createdAt: number }> = [];
    const wrong: string[] = [];
    let lost = 0;

    const payments: Array<Promise<void>> = [];
    /** Paid from where it stood, right after the restart it lived through (well within its lifetime). */
    const payAfterRestart = async (s: Session) => {
      const card = await driver.vaultCard(s, SANDBOX_CARDS.approved);
      await untilAnswered(() => s.handle.executeUpdate(payUpdate, { args: [card], updateId: `pay-${s.cartId}` }));
      const { status } = await untilAnswered(() => s.handle.result());
      if (status !== 'paid' || (await ledgerRow(stack, s.cartId))?.status !== 'paid') {
        lost++;
        wrong.push(`${s.cartId}: ${status} after paying`);
      }
    };

    for (const trial of plan) {
      const [waiting, idle] = await Promise.all([untilAnswered(() => driver.createSession()), untilAnswered(() => driver.createSession())]);
      toAbandon.push({ session: idle, createdAt: Date.now() });
      await untilAnswered(() =>
        waiting.handle.executeUpdate(sendCodeUpdate, { args: [{ contact: 'jane.doe@example.com' }], updateId: `send-${waiting.cartId}` }),
      );
      const codeHash = otpHash(stack.config.keyring, waiting.cartId, await untilAnswered(() => driver.sentCode(waiting)));
      await untilAnswered(() => waiting.handle.executeUpdate(verifyCodeUpdate, { args: [{ codeHash }], updateId: `verify-${waiting.cartId}` }));
      toPay.push(waiting);
      await new Promise((r) => setTimeout(r, trial.upForMs));
      await server.stop();
      await new Promise((r) => setTimeout(r, trial.downForMs));
      await startServer();
      // Still there, where it stood.
      if ((await stepOf(waiting)) !== 'card') wrong.push(`${waiting.cartId}: not at the card step after a restart`);
      payments.push(payAfterRestart(waiting));
    }
    await Promise.all(payments);
    let latestAbandonMs = 0;
    for (const { session, createdAt } of toAbandon) {
      const { status } = await untilAnswered(() => session.handle.result());
      const description = await session.handle.describe();
      const lifetimeMs = description.closeTime!.getTime() - description.startTime.getTime();
      latestAbandonMs = Math.max(latestAbandonMs, lifetimeMs - LIFETIME_SECONDS * 1000);
      if (status !== 'abandoned') {
        lost++;
        wrong.push(`${session.cartId}: ${status}, expected abandoned`);
      }
      if (lifetimeMs < LIFETIME_SECONDS * 1000 || lifetimeMs > LIFETIME_SECONDS * 1000 + ABANDON_SLACK_MS)
        wrong.push(`${session.cartId}: abandoned after ${lifetimeMs} ms`);
      if (Date.now() - createdAt < LIFETIME_SECONDS * 1000) wrong.push(`${session.cartId}: ended early`);
      const events = (await recordedEvents(stack, session.cartId)).map((e) => e.event);
      if (events.join() !== 'order_abandoned') wrong.push(`${session.cartId}: events ${events.join()}`);
    }

    const leaks = [...findLeaksInFiles(stack.logFiles(), stack.secrets()), ...(await findLeaksInDatabase(stack.db, 'temporal-restart-db', stack.secrets()))];
    reportFigures({
      suite: 'temporal-restart',
      title: `${temporal.title} (sessions of ${LIFETIME_SECONDS} s)`,
      seed,
      trials,
      faults: { 'Temporal server restarts': plan.length },
      sessionsChecked: toPay.length + toAbandon.length,
      sessionsLost: lost,
      leaks,
      notes: [`abandoned sessions closed at most ${latestAbandonMs} ms after their ${LIFETIME_SECONDS} s`, ...wrong],
    });
    expect(wrong).toEqual([]);
    expect(leaks).toEqual([]);
  });
});
