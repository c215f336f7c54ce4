import { randomUUID } from 'node:crypto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { DestinationStream } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { loadConfig, type Config } from '../../core/config.js';
import { createDb, type Db } from '../../core/db/client.js';
import { listen } from '../../core/http-service.js';
import { createLogger, type Logger } from '../../core/logger.js';
import type { MessageSender } from '../../core/checkout/otp/sender.js';
import type { PaymentProcessor } from '../../core/checkout/payment-processor.js';
import type { postWebhook } from '../../core/webhooks/http-post.js';
import type { FetchVerificationFile, ResolveTxt } from '../../core/merchants/domain-verification.js';
import { markDomainsVerified } from './verified-domains.js';
import { registerMerchantWithoutUrlCheck, type CreatedMerchant, type NewMerchant } from '../../core/onboarding/registration.js';
import { connectTemporal, type Temporal, temporalConnectionOptions, withEagerStarts } from '../../core/temporal/connection.js';
import { createWebApp } from '../../web/app.js';
import { createCartWorker } from '../../worker/create-worker.js';
import { PRODUCTION_SETTINGS } from './production-settings.js';
import { freePort } from '../../scripts/free-port.js';
import { serveWorkerMetrics } from '../../worker/metrics.js';
import { ensureSdkRuntime, routeSdkLogs } from './sdk-runtime.js';
import { sdkLoggerFrom } from '../../worker/sdk-logger.js';
import { createActivityMetrics, type ActivityMetrics } from '../../activities/metrics.js';

export interface TestStack {
  config: Config;
  db: Db;
  temporal: Temporal;
  logger: Logger;
  worker: Worker;
  apiUrl: string;
  checkoutUrl: string;
  /** What the worker's activities counted. */
  workerMetrics: ActivityMetrics;
  /** The worker's `GET /metrics`, when the stack was started with `serveWorkerMetrics`. */
  workerMetricsUrl?: string;
  createMerchant(overrides?: Partial<NewMerchant>): Promise<CreatedMerchant>;
  stop(): Promise<void>;
}

/** What a production worker must be given (no sandbox defaults there), and where logs go for scans. */
export interface TestStackOptions {
  otpSender?: MessageSender;
  paymentProcessor?: PaymentProcessor;
  postWebhook?: typeof postWebhook;
  /** The worker's domain verification fetch and TXT lookup; by default neither finds anything (no network in tests). */
  fetchVerificationFile?: FetchVerificationFile;
  resolveTxt?: ResolveTxt;
  logDestination?: DestinationStream;
  /**
   * Serve the worker's /metrics on WORKER_METRICS_PORT (set it in env), with the Temporal SDK's
   * metrics from the process's one exporter (test/support/sdk-runtime.ts).
   */
  serveWorkerMetrics?: boolean;
  /**
   * The checkout page listens where CHECKOUT_BASE_URL says (a free port, chosen first), so links the
   * worker builds from it (the 3-D Secure return) reach it; otherwise it is a placeholder.
   */
  checkoutAtItsBaseUrl?: boolean;
  /** The host of that CHECKOUT_BASE_URL (127.0.0.1 unless told): `localhost` for passkeys, which take no IP address as their relying party, and to put the page on another site than loopback's. */
  checkoutHostname?: string;
}

/**
 * The real thing, per test file: API and checkout page listening on free ports, and a worker on a
 * task queue of its own, all against the run's PostgreSQL and Temporal server.
 */
export async function startTestStack(env: Record<string, string> = {}, options: TestStackOptions = {}): Promise<TestStack> {
  // Production refuses to start without its settings: a production stack gets a complete set, which the test's own env overrides.
  const production = env.CHECKOUT_ENV === 'production' ? PRODUCTION_SETTINGS : {};
  const { metricsAddress } = await ensureSdkRuntime();
  const webPort = options.checkoutAtItsBaseUrl ? await freePort() : undefined;
  const config = loadConfig({
    CHECKOUT_ENV: 'sandbox',
    ...production,
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    // A stack given its own keyring (DATA_ENCRYPTION_KEYS) must not also get the run's single key.
    ...(env.DATA_ENCRYPTION_KEYS ? {} : { DATA_ENCRYPTION_KEY: inject('dataEncryptionKey') }),
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    OPERATOR_TOKEN: 'test-operator-token-0123456789',
    METRICS_TOKEN: 'test-metrics-scrape-token-0123456789',
    LOG_LEVEL: 'silent',
    API_PORT: '1',
    WEB_PORT: '1',
    // Every test file's page comes from 127.0.0.1 and many send codes to the same contacts within the
    // hour: the page's abuse limits are set out of reach unless a test sets them.
    RATE_LIMIT_PAGE_ACTIONS_PER_CLIENT: '1000000',
    OTP_SENDS_PER_DESTINATION: '1000000',
    OTP_SENDS_PER_CLIENT: '1000000',
    SMS_PER_MERCHANT_PER_HOUR: '1000000',
    SMS_PER_DEPLOYMENT_PER_HOUR: '1000000',
    EMAIL_PER_MERCHANT_PER_HOUR: '1000000',
    EMAIL_PER_DEPLOYMENT_PER_HOUR: '1000000',
    // Many files check that a wrong or missing operator token is refused, all from 127.0.0.1.
    RATE_LIMIT_OPERATOR_AUTH_FAILURES_PER_CLIENT: '1000000',
    // Many files sign in to the dashboard from 127.0.0.1 into the run's one database: ten a minute
    // (the default) were spent by other files' sign-ins and a browser test's operator got 429. The
    // files that test the limit set it (dashboard-auth, ipv6-48-limits).
    RATE_LIMIT_DASHBOARD_SIGN_INS_PER_CLIENT: '1000000',
    // The test process is the API's, the worker's and the page's at once, on a shared machine: its event
    // loop runs late often enough that create-cart would be shed in files that test something else.
    // test/integration/create-cart-admission.test.ts turns it on.
    ADMISSION_SHEDDING: 'off',
    TEMPORAL_SDK_METRICS_ADDRESS: metricsAddress,
    ...(webPort ? { CHECKOUT_BASE_URL: `http://${options.checkoutHostname ?? '127.0.0.1'}:${webPort}` } : {}),
    // Sandbox tests deliver to receivers on this machine (test/support/webhook-receiver.ts), as local
    // development does; production refuses the setting, and a test of the deployed sandbox turns it off.
    ...(env.CHECKOUT_ENV === 'production' ? {} : { WEBHOOK_ALLOW_LOOPBACK: 'true' }),
    ...env,
  });
  const logger = createLogger({ level: config.logLevel, name: 'test', ...(options.logDestination ? { destination: options.logDestination } : {}) });
  // As worker/main.ts: the SDK logs through the stack's logger, so its lines are scanned with the stack's.
  routeSdkLogs(sdkLoggerFrom(logger.child({ component: 'temporal-sdk' })));
  const db = createDb(config.databaseUrl);
  const workerConnection = await NativeConnection.connect(temporalConnectionOptions(config));
  // TEMPORAL_EAGER_START: the API and the page start through the worker's connection, as the API process does with its own worker.
  const temporal = config.temporal.eagerStart ? withEagerStarts(connectTemporal(config), config, workerConnection) : connectTemporal(config);
  const workerMetrics = createActivityMetrics();
  const worker = await createCartWorker({
    metrics: workerMetrics,
    config,
    db,
    logger,
    connection: workerConnection,
    workflowBundle: inject('workflowBundle'),
    otpSender: options.otpSender,
    paymentProcessor: options.paymentProcessor,
    postWebhook: options.postWebhook,
    fetchVerificationFile: options.fetchVerificationFile ?? (() => Promise.resolve({ error: 'network' as const, detail: 'no network in tests' })),
    resolveTxt: options.resolveTxt ?? (() => Promise.reject(Object.assign(new Error('no network in tests'), { code: 'ECONNREFUSED' }))),
  });
  const running = worker.run();

  // Replays sent at once post from the API and the page as the worker does, so they take the same postWebhook.
  const senders = { config, db, temporal, logger, ...(options.postWebhook ? { postWebhook: options.postWebhook } : {}) };
  const api = await listen(createApiApp(senders).fetch, { hostname: '127.0.0.1' });
  const web = await listen(createWebApp(senders).fetch, { hostname: '127.0.0.1', ...(webPort ? { port: webPort } : {}) });
  const metricsServer = options.serveWorkerMetrics
    ? await serveWorkerMetrics({ config, db, registry: workerMetrics.registry, hostname: '127.0.0.1' })
    : undefined;

  return {
    config,
    db,
    temporal,
    logger,
    worker,
    apiUrl: api.url,
    checkoutUrl: web.url,
    workerMetrics,
    ...(metricsServer ? { workerMetricsUrl: `${metricsServer.url}/metrics` } : {}),
    async createMerchant(overrides = {}) {
      const merchant = await registerMerchantWithoutUrlCheck(db, config.keyring, {
        name: 'Test Store',
        environment: config.environment,
        webhookUrl: 'http://localhost:9/webhooks',
        // The host of every URL in validCartRequest, so production stacks take its carts.
        domains: ['store.example'],
        ...overrides,
      });
      // Verified, as production needs (test/integration/domain-verification.test.ts tests the check itself).
      if (merchant.environment === 'production') await markDomainsVerified(db, merchant.platformUuid);
      return merchant;
    },
    async stop() {
      await Promise.all([api.close(), web.close(), metricsServer?.close()]);
      worker.shutdown();
      await running;
      await workerConnection.close();
      await temporal.close();
      await db.end();
    },
  };
}

/**
 * The stack for one describe block (or file): started before its tests, stopped after them. The
 * object it returns stands for the stack once it runs; touching it earlier is a test bug, said so.
 */
export function useTestStack(env: Record<string, string> = {}, options: TestStackOptions = {}): TestStack {
  let running: TestStack | undefined;
  beforeAll(async () => {
    running = await startTestStack(env, options);
  });
  afterAll(() => running?.stop());
  const started = (use: string): TestStack => {
    if (!running) throw new Error(`the test stack is not running yet (${use} outside a test or hook)`);
    return running;
  };
  // Besides reads, the own-key traps let `{ ...stack, config }` copy the running stack's fields.
  return new Proxy({} as TestStack, {
    get: (_, property) => Reflect.get(started(`read of ${String(property)}`), property) as unknown,
    has: (_, property) => Reflect.has(started(`lookup of ${String(property)}`), property),
    ownKeys: () => Reflect.ownKeys(started('listing its fields')),
    getOwnPropertyDescriptor(_, property) {
      const descriptor = Reflect.getOwnPropertyDescriptor(started(`read of ${String(property)}`), property);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
