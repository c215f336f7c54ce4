import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cancelUpdate } from '../../workflows/cart-session/messages.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { freePort } from '../../scripts/free-port.js';
import { startInfrastructure, type Infrastructure } from '../../scripts/infrastructure.js';
import { untilAnswered } from '../support/checkout-flow.js';
import { postCart, validCartRequest } from '../support/fixtures.js';
import { findLeaksInDatabase, findLeaksInFiles } from '../support/leak-scan.js';
import { createProcessStack, TEST_WORKER, writeWorkflowBundle, type ProcessStack } from '../support/process-stack.js';
import { planOf, reliabilitySettings, reportFigures } from '../support/reliability.js';
import type { RoleProcess } from '../support/role-process.js';
import { waitFor } from '../support/wait-for.js';

/**
 * PostgreSQL of this file's own, stopped and started again while merchants keep creating carts and
 * customers keep cancelling them. While it is down the API answers 503 SERVICE_UNAVAILABLE in the
 * documented envelope (and a retry with the same Idempotency-Key is how a merchant gets its cart);
 * it recovers by itself; and nothing is half-written: every ledger row has its session and every
 * session that was not terminated (the API's cleanup when a commit fails) has its row.
 */
describe('PostgreSQL restarted under load', () => {
  const { seed, trials } = reliabilitySettings('postgres-restart');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-pg-restart-'));
  let postgresPort: number;
  let postgres: Infrastructure;
  let stack: ProcessStack;
  let api: RoleProcess;
  let platformUuid: string;

  const startPostgres = () =>
    startInfrastructure({
      dataDir,
      postgresPort,
      temporalPort: 0,
      temporalAddress: inject('temporalAddress'),
      persistentTemporal: false,
      log: () => {},
    });

  beforeAll(async () => {
    // PostgreSQL runs as the `postgres` user when we are root: it must be able to reach its folder.
    chmodSync(dataDir, 0o755);
    postgresPort = await freePort();
    postgres = await startPostgres();
    stack = createProcessStack({
      databaseUrl: postgres.databaseUrl,
      temporalAddress: inject('temporalAddress'),
      env: { TEST_WORKFLOW_BUNDLE: writeWorkflowBundle() },
    });
    [api] = await Promise.all([stack.start('api', 'api'), stack.start('worker', 'worker', { entry: TEST_WORKER })]);
    platformUuid = (await stack.createMerchant()).platformUuid;
  });
  afterAll(async () => {
    await stack?.stop();
    await postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 in the envelope while it is down, recovers by itself and leaves nothing half-written', { timeout: 1_200_000 }, async () => {
    const plan = planOf(fc.record({ downForMs: fc.integer({ min: 500, max: 4_000 }), upForMs: fc.integer({ min: 1_000, max: 3_000 }) }), seed, trials);
    const statuses = new Map<number, number>();
    const badEnvelopes: string[] = [];
    const created = new Set<string>();
    const cancels: Array<Promise<unknown>> = [];
    let loading = true;
    let requests = 0;
    let unanswered = 0;

    /** A merchant's server: each cart under its own Idempotency-Key, retried with that key after a 503. */
    const merchant = async () => {
      while (loading) {
        const key = randomUUID();
        for (;;) {
          requests++;
          const res = await postCart(api.url, validCartRequest(platformUuid), { 'idempotency-key': key }).catch(() => undefined);
          if (!res) {
            // No answer at all: the API process is gone, which is worse than any 5xx.
            unanswered++;
            await new Promise((r) => setTimeout(r, 200));
            if (!loading) break;
            continue;
          }
          const body = (await res.json()) as { code: string; errors?: unknown[]; requestId?: string; data?: { cartId: string } };
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200) {
            const cartId = body.data!.cartId;
            created.add(cartId);
            // Half the customers cancel at once: the worker writes the ledger and events as PostgreSQL comes and goes.
            if (created.size % 2 === 0)
              cancels.push(
                untilAnswered(() =>
                  stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).executeUpdate(cancelUpdate, { updateId: `cancel-${cartId}` }),
                ),
              );
            break;
          }
          if (res.status === 503) {
            if (body.code !== 'SERVICE_UNAVAILABLE' || !Array.isArray(body.errors) || !body.requestId?.startsWith('req_') || !res.headers.get('retry-after'))
              badEnvelopes.push(JSON.stringify(body));
          }
          if (!loading && res.status !== 200) break;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const merchants = Array.from({ length: 3 }, merchant);

    const recoveries: number[] = [];
    for (const trial of plan) {
      await new Promise((r) => setTimeout(r, trial.upForMs));
      await postgres.stop();
      await new Promise((r) => setTimeout(r, trial.downForMs));
      postgres = await startPostgres();
      const upAt = Date.now();
      const before = statuses.get(200) ?? 0;
      while ((statuses.get(200) ?? 0) === before && Date.now() - upAt < 60_000) await new Promise((r) => setTimeout(r, 50));
      recoveries.push(Date.now() - upAt);
    }
    loading = false;
    await Promise.all(merchants);
    await Promise.all(cancels);

    /** Ledger against sessions: what does not match once every failed creation's cleanup has run. */
    const mismatches = async () => {
      const ledger = new Map((await stack.db<{ cart_id: string; status: string }[]>`select cart_id, status from carts`).map((r) => [r.cart_id, r.status]));
      const sessions = new Map<string, string>();
      for await (const w of stack.temporal.client.workflow.list({ query: `TaskQueue = '${stack.config.temporal.taskQueue}' AND WorkflowType = 'cartSession'` }))
        sessions.set(w.workflowId.replace(/^cart-/, ''), w.status.name);
      return {
        rows: ledger.size,
        halfWritten: [
          ...[...ledger.keys()]
            .filter((id) => !sessions.has(id) || sessions.get(id) === 'TERMINATED')
            .map((id) => `row ${id} without a live session (${sessions.get(id) ?? 'none'})`),
          ...[...sessions]
            .filter(([id, status]) => status !== 'TERMINATED' && !ledger.has(id))
            .map(([id, status]) => `session ${id} (${status}) without a row`),
          ...[...created].filter((id) => !ledger.has(id)).map((id) => `cart ${id} answered 200 but not in the ledger`),
          // A session that ended must have its end in the ledger too (cancelled here; the others still run).
          ...[...sessions]
            .filter(([id, status]) => status === 'COMPLETED' && ledger.get(id) !== 'cancelled')
            .map(([id]) => `session ${id} ended, its row did not`),
        ],
      };
    };
    // A creation that failed mid-commit is settled in the background once PostgreSQL answers again.
    const { rows, halfWritten } = await waitFor(
      async () => {
        const now = await mismatches();
        return now.halfWritten.length === 0 ? now : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 1_000, what: 'ledger and sessions matching' },
    ).catch(mismatches);
    const serverErrors = unanswered + [...statuses].filter(([status]) => status >= 500 && status !== 503).reduce((n, [, count]) => n + count, 0);
    const leaks = [...findLeaksInFiles(stack.logFiles(), stack.secrets()), ...(await findLeaksInDatabase(stack.db, 'pg-restart-db', stack.secrets()))];

    reportFigures({
      suite: 'postgres-restart',
      title: 'PostgreSQL stopped and restarted under create-cart and cancel load',
      seed,
      trials,
      faults: { 'PostgreSQL restarts': plan.length },
      sessionsChecked: rows,
      sessionsLost: halfWritten.length,
      serverErrors,
      expected503s: statuses.get(503) ?? 0,
      leaks,
      notes: [
        `${requests} create-cart requests: ${JSON.stringify(Object.fromEntries(statuses))}, ${unanswered} without an answer`,
        `back to 200 within ${Math.max(...recoveries)} ms of PostgreSQL accepting connections (worst of ${recoveries.length})`,
        ...halfWritten,
        ...badEnvelopes.map((b) => `503 outside the envelope: ${b}`),
      ],
    });
    expect(halfWritten).toEqual([]);
    expect(badEnvelopes).toEqual([]);
    expect(serverErrors).toBe(0);
    expect(statuses.get(503)).toBeGreaterThan(0);
    expect(leaks).toEqual([]);
  });
});
