import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ScheduleOverlapPolicy, type ScheduleHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivityMetrics } from '../../activities/metrics.js';
import type { Config } from '../../core/config.js';
import { evidenceMarkdown, gatherEvidence } from '../../core/integrity/evidence-report.js';
import { loadInventory } from '../../core/integrity/inventory.js';
import { acknowledgeAlert, checkHistory, listUnclosedAlerts } from '../../core/integrity/tamper-check.js';
import { createLogger } from '../../core/logger.js';
import { temporalConnectionOptions } from '../../core/temporal/connection.js';
import { signatureFor } from '../../core/webhooks/signing.js';
import { createCartWorker } from '../../worker/create-worker.js';
import { ensurePageIntegrityCheckSchedule } from '../../workflows/page-integrity-check/client.js';
import { PAGE_INTEGRITY_CHECK_SUMMARY, type PageIntegrityCheckResult } from '../../workflows/page-integrity-check/messages.js';
import { listAudit } from '../../core/audit/audit-log.js';
import type { Person } from '../../core/people/people.js';
import { SESSION_COOKIE } from '../../web/dashboard/session.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { addPerson, sessionFor } from '../support/dashboard-people.js';
import { startTamperingProxy } from '../support/tampering-proxy.js';
import { useTestStack } from '../support/test-stack.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const ALERT_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/**
 * The scheduled tamper check (issue 52, point 4) against a running stack, through a proxy that tampers
 * with what a browser receives (the stack reads its assets once at start): one byte of checkout.js, or
 * the CSP without frame-ancestors. The check runs as the schedule's workflow on workers of its own.
 */
describe('the scheduled payment page tamper check', () => {
  const stack = useTestStack({}, { checkoutAtItsBaseUrl: true });
  let proxy: Awaited<ReturnType<typeof startTamperingProxy>>;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let config: Config;
  let schedule: ScheduleHandle;
  let running: { worker: Worker; done: Promise<void>; connection: NativeConnection } | undefined;
  const metrics = createActivityMetrics();
  const logLines: Array<Record<string, unknown>> = [];
  const from = new Date();
  let operator: Person;
  let dashboard: ReturnType<typeof dashboardClient>;

  async function startWorker() {
    const connection = await NativeConnection.connect(temporalConnectionOptions(config));
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    });
    const worker = await createCartWorker({
      config,
      db: stack.db,
      logger: createLogger({ level: 'info', name: 'integrity-test', destination }),
      connection,
      metrics,
      workflowBundle: inject('workflowBundle'),
    });
    running = { worker, done: worker.run(), connection };
  }

  async function stopWorker() {
    running!.worker.shutdown();
    await running!.done;
    await running!.connection.close();
    running = undefined;
  }

  /** The schedule's latest action, run to its end: what one scheduled check found. */
  async function latestRun(after: number): Promise<PageIntegrityCheckResult> {
    for (;;) {
      const { info } = await schedule.describe();
      if (info.numActionsTaken > after) {
        const action = info.recentActions.at(-1)!.action;
        return stack.temporal.client.workflow
          .getHandle(action.workflow.workflowId, action.workflow.firstExecutionRunId)
          .result() as Promise<PageIntegrityCheckResult>;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Triggers the schedule now, as its interval would, and waits for the run. */
  async function runCheck(): Promise<PageIntegrityCheckResult & { ms: number }> {
    const started = Date.now();
    const { info } = await schedule.describe();
    await schedule.trigger(ScheduleOverlapPolicy.ALLOW_ALL);
    return { ...(await latestRun(info.numActionsTaken)), ms: Date.now() - started };
  }

  beforeAll(async () => {
    proxy = await startTamperingProxy(stack.checkoutUrl);
    receiver = await startWebhookReceiver();
    const canary = await stack.createMerchant({ name: 'Integrity Canary' });
    operator = await addPerson(stack.db, null, 'operator');
    dashboard = dashboardClient(stack.checkoutUrl);
    dashboard.jar.set(SESSION_COOKIE, await sessionFor(stack.db, operator));
    config = {
      ...stack.config,
      temporal: { ...stack.config.temporal, taskQueue: `${stack.config.temporal.taskQueue}-integrity` },
      integrityCheck: {
        ...stack.config.integrityCheck,
        apiUrl: stack.apiUrl,
        pageUrl: proxy.url,
        canaryMerchantId: canary.platformUuid,
        alertWebhook: { url: receiver.url, secret: ALERT_SECRET },
      },
    };
    await startWorker();
    // As worker/main.ts at start: the schedule, and one run at once.
    schedule = await ensurePageIntegrityCheckSchedule(stack.temporal.client, config);
  }, 60_000);

  afterAll(async () => {
    await schedule?.delete();
    if (running) await stopWorker();
    await Promise.all([proxy?.close(), receiver?.close()]);
  });

  it('shows in Temporal with its summary, and ran once at worker start, clean', async () => {
    const first = await latestRun(0);
    expect(first).toMatchObject({ pages: expect.any(Number), differences: 0, raised: 0 });
    const described = await schedule.describe();
    expect(described.state.note).toBe(PAGE_INTEGRITY_CHECK_SUMMARY);
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'checkPageIntegrity', staticSummary: PAGE_INTEGRITY_CHECK_SUMMARY });
    expect(described.spec.intervals![0]!.every).toBe(24 * 3600 * 1000);
  }, 60_000);

  it('alerts once when one byte of checkout.js changes, and closes the alert once restored and acknowledged', async () => {
    proxy.tamper('checkout-script-byte');
    const tampered = await runCheck();
    console.log(`tamper check run: ${tampered.pages} pages in ${tampered.ms} ms`);
    expect(tampered.raised).toBeGreaterThan(0);
    const alerts = await listUnclosedAlerts(stack.db);
    expect(alerts.length).toBe(tampered.raised);
    expect(alerts.every((a) => a.status === 'open' && /checkout\./.test(a.difference))).toBe(true);

    // The same difference again: the same alerts, touched, none new.
    expect(await runCheck()).toMatchObject({ raised: 0, differences: tampered.differences });
    expect((await listUnclosedAlerts(stack.db)).map((a) => a.id).sort()).toEqual(alerts.map((a) => a.id).sort());

    // Every surface: a log line per alert, the metrics, one signed webhook.
    const logged = logLines.filter((l) => l.event === 'page_integrity.alert');
    expect(logged.map((l) => l.alertId).sort()).toEqual(alerts.map((a) => a.id).sort());
    expect((await metrics.integrityAlerts.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(alerts.length);
    expect((await metrics.integrityOpenAlerts.get()).values[0]!.value).toBe(alerts.length);
    expect(receiver.requests).toHaveLength(1);
    const [hook] = receiver.requests;
    expect(hook!.headers['webhook-signature']).toBe(
      signatureFor(ALERT_SECRET, String(hook!.headers['webhook-id']), Number(hook!.headers['webhook-timestamp']), hook!.rawBody),
    );
    expect((JSON.parse(hook!.rawBody) as { alerts: unknown[] }).alerts).toHaveLength(alerts.length);

    proxy.tamper('none');
    expect(await runCheck()).toMatchObject({ differences: 0, raised: 0 });
    // Gone, but nobody has looked yet: still open.
    expect((await listUnclosedAlerts(stack.db)).map((a) => a.status)).toEqual(alerts.map(() => 'open'));

    // The signed-in operator acknowledges each on the dashboard, with a note: closed at once (the last run no longer found it), audit-logged.
    const page = await dashboard.get('/dashboard/operator/integrity');
    expect(page.status).toBe(200);
    for (const alert of alerts) expect(page.body).toContain(`/dashboard/operator/integrity/alerts/${alert.id}/acknowledge`);
    expect((await dashboard.post(`/dashboard/operator/integrity/alerts/${alerts[0]!.id}/acknowledge`, { note: '' })).status).toBe(422);
    for (const alert of alerts) {
      const acked = await dashboard.post(`/dashboard/operator/integrity/alerts/${alert.id}/acknowledge`, { note: 'CDN cache poisoned; purged' });
      expect(acked.status, acked.body).toBe(200);
      expect(acked.body).toContain(`Alert ${alert.id} acknowledged and closed`);
    }
    expect((await dashboard.post(`/dashboard/operator/integrity/alerts/${alerts[0]!.id}/acknowledge`, { note: 'again' })).status).toBe(404);
    expect(await listUnclosedAlerts(stack.db)).toEqual([]);
    const audited = await listAudit(stack.db, { action: 'integrity_alert.acknowledge', actor: operator.email });
    expect(audited.map((e) => e.target).sort()).toEqual(alerts.map((a) => `integrity_alert:${a.id}`).sort());
  }, 120_000);

  it('alerts when the CSP loses frame-ancestors; acknowledged, the next clean run closes it', async () => {
    proxy.tamper('drop-frame-ancestors');
    const weakened = await runCheck();
    expect(weakened.raised).toBeGreaterThan(0);
    const alerts = await listUnclosedAlerts(stack.db);
    expect(alerts.some((a) => a.difference.startsWith('CSP frame-ancestors'))).toBe(true);
    for (const alert of alerts) await acknowledgeAlert(stack.db, { id: alert.id, by: operator.email, note: 'edge rule reverted' });
    expect((await listUnclosedAlerts(stack.db)).map((a) => a.status)).toEqual(alerts.map(() => 'acknowledged'));
    proxy.tamper('none');
    await runCheck();
    expect(await listUnclosedAlerts(stack.db)).toEqual([]);
  }, 120_000);

  it('keeps its run history across a worker restart', async () => {
    const before = (await checkHistory(stack.db, { from, to: new Date(Date.now() + 60_000) })).runs;
    const actionsBefore = (await schedule.describe()).info.numActionsTaken;
    await stopWorker();
    await startWorker();
    expect(await runCheck()).toMatchObject({ differences: 0 });
    const after = (await checkHistory(stack.db, { from, to: new Date(Date.now() + 60_000) })).runs;
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).toHaveLength(before.length + 1);
    expect((await schedule.describe()).info.numActionsTaken).toBe(actionsBefore + 1);
  }, 120_000);

  it('puts every run and every alert with its triage in the evidence report', async () => {
    const evidence = await gatherEvidence(stack.db, { from, to: new Date(Date.now() + 60_000), inventory: loadInventory() });
    expect(evidence.runs.every((r) => r.result === 'clean' || r.result === 'differences')).toBe(true);
    expect(evidence.runs.filter((r) => r.result === 'differences')).toHaveLength(3);
    expect(evidence.alerts.length).toBeGreaterThan(0);
    expect(evidence.alerts.every((a) => a.status === 'closed' && a.acknowledgedBy === operator.email)).toBe(true);
    const markdown = evidenceMarkdown(evidence);
    expect(markdown).toContain('CDN cache poisoned; purged');
    expect(markdown).toContain('CSP frame-ancestors');
    expect(markdown).toContain('checkout.');
    for (const run of evidence.runs) expect(markdown).toContain(`| ${run.id} |`);
  });

  it("exports the same evidence from the operator's dashboard page", async () => {
    const json = await dashboard.get('/dashboard/operator/integrity/evidence.json');
    expect(json.status).toBe(200);
    const exported = JSON.parse(json.body) as { runs: unknown[]; alerts: Array<{ note: string }> };
    expect(exported.alerts.map((a) => a.note)).toContain('edge rule reverted');
    const markdown = await dashboard.get(`/dashboard/operator/integrity/evidence.md?from=${from.toISOString().slice(0, 10)}`);
    expect(markdown.status).toBe(200);
    expect(markdown.body).toContain('CDN cache poisoned; purged');
    expect((await dashboard.get('/dashboard/operator/integrity/evidence.md?from=yesterday')).status).toBe(400);
  });

  it('writes the report from the command line, as Markdown and JSON', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'integrity-report-'));
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const to = day(new Date(Date.now() + 24 * 3600 * 1000));
    const { execFileSync } = await import('node:child_process');
    execFileSync('node', ['--import', 'tsx', 'scripts/integrity.ts', 'report', '--from', day(from), '--to', to, '--out', out], {
      env: {
        ...process.env,
        CHECKOUT_ENV: 'sandbox',
        DATABASE_URL: stack.config.databaseUrl,
        DATA_ENCRYPTION_KEY: inject('dataEncryptionKey'),
        LOG_LEVEL: 'silent',
      },
    });
    const json = JSON.parse(readFileSync(path.join(out, `page-integrity-${day(from)}-${to}.json`), 'utf8')) as { alerts: Array<{ note: string }> };
    expect(json.alerts.map((a) => a.note)).toContain('CDN cache poisoned; purged');
    expect(readFileSync(path.join(out, `page-integrity-${day(from)}-${to}.md`), 'utf8')).toContain('edge rule reverted');
  }, 60_000);
});
