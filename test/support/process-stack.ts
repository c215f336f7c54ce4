import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../core/config.js';
import { createDb, type Db } from '../../core/db/client.js';
import { registerMerchantWithoutUrlCheck, type CreatedMerchant, type NewMerchant } from '../../core/onboarding/registration.js';
import { connectTemporal, type Temporal } from '../../core/temporal/connection.js';
import { startRole, type Role, type RoleProcess } from './role-process.js';

const OPERATOR_TOKEN = 'reliability-operator-token-0123456789';

/** The worker entry that restarts in seconds (test/support/test-worker.ts); give it writeWorkflowBundle()'s file. */
export const TEST_WORKER = 'test/support/test-worker.ts';

/** The run's workflow bundle in a file, for TEST_WORKFLOW_BUNDLE. */
export function writeWorkflowBundle(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'hosted-checkout-bundle-')), 'bundle.json');
  writeFileSync(file, JSON.stringify(inject('workflowBundle')));
  return file;
}

/**
 * The roles as separate processes (api, web, worker — as many of each as a test starts) sharing one
 * configuration, against the PostgreSQL and Temporal a test names, on a task queue of their own. The
 * test process keeps a client, a database pool and the config too, to drive sessions and check rows.
 */
export function createProcessStack(options: { databaseUrl: string; temporalAddress: string; env?: Record<string, string> }) {
  const dataEncryptionKey = randomBytes(32).toString('base64');
  const env: Record<string, string> = {
    CHECKOUT_ENV: 'sandbox',
    DATABASE_URL: options.databaseUrl,
    TEMPORAL_ADDRESS: options.temporalAddress,
    DATA_ENCRYPTION_KEY: dataEncryptionKey,
    OPERATOR_TOKEN,
    TEMPORAL_TASK_QUEUE: `reliability-${randomUUID()}`,
    // Load from one address is what is tested, not the abuse limits.
    RATE_LIMIT_PER_CLIENT: '1000000',
    RATE_LIMIT_PER_PLATFORM_CLIENT: '1000000',
    RATE_LIMIT_PER_PLATFORM: '1000000',
    RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: '1000000',
    OTP_SENDS_PER_DESTINATION: '1000000',
    OTP_SENDS_PER_CLIENT: '1000000',
    RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT: '1000000',
    // Crashes and load on a shared machine delay the API's event loop: what is tested is that every
    // session ends right, not create-cart's shedding, which test/integration/create-cart-admission.test.ts tests.
    ADMISSION_SHEDDING: 'off',
    // Its merchants' webhooks go to receivers on this machine.
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    ...options.env,
  };
  const config: Config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const db: Db = createDb(config.databaseUrl);
  const temporal: Temporal = connectTemporal(config);
  const logDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-reliability-logs-'));
  const running = new Set<RoleProcess>();
  const logFiles = new Set<string>();
  const merchants: CreatedMerchant[] = [];

  return {
    env,
    config,
    db,
    temporal,
    logDir,
    /** Starts one process of `role`; `label` names its log file (a restarted process appends to it). */
    async start(role: Role, label: string, extra: { entry?: string; env?: Record<string, string> } = {}): Promise<RoleProcess> {
      const started = await startRole({ role, label, env: { ...env, ...extra.env }, logDir, ...(extra.entry ? { entry: extra.entry } : {}) });
      running.add(started);
      logFiles.add(started.logFile);
      void new Promise((resolve) => started.child.once('close', resolve)).then(() => running.delete(started));
      return started;
    },
    async createMerchant(overrides: Partial<NewMerchant> = {}): Promise<CreatedMerchant> {
      const merchant = await registerMerchantWithoutUrlCheck(db, config.keyring, {
        name: 'Reliability Store',
        environment: 'sandbox',
        webhookUrl: 'http://localhost:9/webhooks',
        domains: ['store.example'],
        ...overrides,
      });
      merchants.push(merchant);
      return merchant;
    },
    logFiles: () => [...logFiles],
    /** Exact values that must never appear in a log or a row. */
    secrets: () => [dataEncryptionKey, OPERATOR_TOKEN, ...merchants.flatMap((m) => [m.webhookSecret, m.apiKey])],
    async stop() {
      await Promise.allSettled([...running].map((r) => r.stop('SIGTERM')));
      await temporal.close();
      await db.end();
    },
  };
}

export type ProcessStack = ReturnType<typeof createProcessStack>;
