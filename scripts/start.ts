import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { createApiApp } from '../api/app.js';
import { CREATE_CART_EXAMPLE } from '../api/carts/cart-paths.js';
import { launcherEnvironmentSchema, loadConfig } from '../core/config.js';
import { createDb } from '../core/db/client.js';
import { listen } from '../core/http-service.js';
import { createLogger } from '../core/logger.js';
import { connectTemporal, temporalConnectionOptions, withEagerStarts } from '../core/temporal/connection.js';
import { createWebApp } from '../web/app.js';
import { DASHBOARD_CODEC_PATH, TEMPORAL_UI_PATH } from '../web/dashboard/temporal-ui.js';
import { bundleWorkflows, createCartWorker } from '../worker/create-worker.js';
import { serveWorkerMetrics, workerTelemetryOptions } from '../worker/metrics.js';
import { sdkLoggerFrom } from '../worker/sdk-logger.js';
import { exitWhenWorkflowThreadStalls } from '../worker/workflow-thread-liveness.js';
import { createActivityMetrics } from '../activities/metrics.js';
import { ensureCardVaultPurgeSchedule } from '../workflows/card-vault-purge/client.js';
import { ensureSavedCardRemovalSchedule } from '../workflows/saved-card-removal/client.js';
import { ownerPasswordIn } from '../demo-store/owner-login.js';
import { startDemoStore } from '../demo-store/server.js';
import { invite, listPeople } from '../core/people/people.js';
import { EMBED_SCRIPT_INTEGRITY } from '../web/embed-script.js';
import { ensureDemoMerchant } from './demo-merchant.js';
import { localDataEncryptionKey, localMetricsToken, localOperatorToken, startInfrastructure } from './infrastructure.js';

/** `npm start`: the whole stack on this machine, on real PostgreSQL and a real Temporal dev server. */

const launcher = launcherEnvironmentSchema.parse(process.env);
const DATA_DIR = path.resolve(launcher.HOSTED_CHECKOUT_DATA_DIR);
const say = (line: string) => process.stdout.write(`${line}\n`);

const infrastructure = await startInfrastructure({
  dataDir: DATA_DIR,
  postgresPort: launcher.EMBEDDED_POSTGRES_PORT,
  temporalPort: launcher.TEMPORAL_PORT,
  temporalUiPort: launcher.TEMPORAL_UI_PORT,
  // The dashboard serves the UI to signed-in operators under /dashboard/temporal, and its codec under
  // /dashboard/codec: same origin, so the UI decodes with the operator's dashboard session, nothing to set.
  temporalUiCodecEndpoint: DASHBOARD_CODEC_PATH,
  temporalUiPublicPath: TEMPORAL_UI_PATH,
  persistentTemporal: true,
  databaseUrl: process.env.DATABASE_URL,
  temporalAddress: process.env.TEMPORAL_ADDRESS,
  log: say,
});

const closers: Array<() => Promise<unknown>> = [];
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  say('\nStopping…');
  for (const close of closers.reverse()) await close().catch((err) => say(`  ${String(err)}`));
  await infrastructure.stop();
  say('Stopped.');
  process.exit(code);
}
// embedded-postgres installs exit hooks that stop PostgreSQL and exit at once on a signal, before
// the worker and Temporal are down; this process owns the order of shutdown instead. An impatient
// second Ctrl-C must not kill us mid-way either.
process.removeAllListeners('SIGINT');
process.removeAllListeners('SIGTERM');
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
  const config = loadConfig({
    // npm start is the local sandbox unless told otherwise,
    CHECKOUT_ENV: 'sandbox',
    // whose webhooks go to the demo store on localhost: loopback, which only local development allows.
    ...((process.env.CHECKOUT_ENV ?? 'sandbox') === 'sandbox' ? { WEBHOOK_ALLOW_LOOPBACK: 'true' } : {}),
    ...process.env,
    DATABASE_URL: infrastructure.databaseUrl,
    TEMPORAL_ADDRESS: infrastructure.temporalAddress,
    ...(process.env.DATA_ENCRYPTION_KEYS ? {} : { DATA_ENCRYPTION_KEY: process.env.DATA_ENCRYPTION_KEY ?? localDataEncryptionKey(DATA_DIR) }),
    OPERATOR_TOKEN: process.env.OPERATOR_TOKEN ?? localOperatorToken(DATA_DIR),
    METRICS_TOKEN: process.env.METRICS_TOKEN ?? localMetricsToken(DATA_DIR),
    // The dashboard serves the UI this launcher runs (on whatever port it got) and links carts to it.
    ...(process.env.TEMPORAL_UI_UPSTREAM || !infrastructure.temporalUiUrl ? {} : { TEMPORAL_UI_UPSTREAM: infrastructure.temporalUiUrl }),
  });
  const logger = createLogger({ level: config.logLevel, name: 'hosted-checkout' });
  // We stop the worker ourselves, in order, before the servers it depends on. The SDK's own chatter
  // (worker state changes, bundler stats) would bury the URLs a newcomer needs: it goes through our
  // redacting logger from WARN up. Its metrics exporter is part of the runtime, so this comes once the
  // configuration is known, before any connection.
  const sdkLogger = sdkLoggerFrom(logger.child({ component: 'temporal-sdk' }, { level: logger.isLevelEnabled('warn') ? 'warn' : logger.level }));
  Runtime.install({ shutdownSignals: [], logger: sdkLogger, telemetryOptions: workerTelemetryOptions(config.workerMetrics.temporalSdkAddress) });
  const db = createDb(config.databaseUrl);
  closers.push(() => db.end());
  const temporal = connectTemporal(config);
  closers.push(() => temporal.close());

  const workerConnection = await NativeConnection.connect(temporalConnectionOptions(config));
  const activityMetrics = createActivityMetrics();
  const worker = await createCartWorker({
    config,
    db,
    logger,
    connection: workerConnection,
    workflowBundle: await bundleWorkflows(),
    metrics: activityMetrics,
  });
  const liveness = exitWhenWorkflowThreadStalls(worker, { config, logger });
  const running = worker.run();
  await ensureCardVaultPurgeSchedule(temporal.client, config);
  await ensureSavedCardRemovalSchedule(temporal.client, config);
  closers.push(async () => {
    liveness.stop();
    worker.shutdown();
    await running;
    await workerConnection.close();
  });

  const workerMetrics = await serveWorkerMetrics({ config, db, registry: activityMetrics.registry });
  closers.push(workerMetrics.close);

  // TEMPORAL_EAGER_START: this one process already runs a worker, so its starts can be eager (docs/decisions/session-cost.md).
  const starts = config.temporal.eagerStart ? withEagerStarts(temporal, config, workerConnection) : temporal;
  for (const [app, port] of [
    [createApiApp({ config, db, temporal: starts, logger }), config.apiPort],
    [createWebApp({ config, db, temporal: starts, logger }), config.webPort],
  ] as const) {
    closers.push((await listen(app.fetch, { port })).close);
  }

  const demoStoreUrl = `http://localhost:${launcher.DEMO_MERCHANT_PORT}`;
  const demo = await ensureDemoMerchant({ db, config }, path.join(DATA_DIR, 'demo-merchant.json'), `${demoStoreUrl}/webhooks`);
  // The Demo Store's first owner: while it has no people, an invitation (a passkey accepts it); then its people sign in with theirs.
  const demoPeople = await listPeople(db, demo.platformUuid);
  const firstOwner = demoPeople.length ? undefined : await invite(db, demo.platformUuid, { email: 'owner@demo-store.example', role: 'owner' });
  const dashboardSignIn = firstOwner
    ? `its first owner: open ${config.checkoutBaseUrl}/dashboard/invitations/${firstOwner.token}
                   and create a passkey (works once, for 48 hours; a new one each start until accepted)`
    : `its people (${demoPeople.map((p) => `${p.email}, ${p.role}`).join('; ')}) sign in with their passkeys`;
  const ownerPasswordFile = path.join(DATA_DIR, 'demo-store-owner-password');
  const owner = ownerPasswordIn(ownerPasswordFile);
  const demoStore = await startDemoStore({
    port: launcher.DEMO_MERCHANT_PORT,
    baseUrl: demoStoreUrl,
    publicUrl: 'https://demo-store.example',
    apiBaseUrl: config.apiBaseUrl,
    checkoutBaseUrl: config.checkoutBaseUrl,
    platformUuid: demo.platformUuid,
    apiKey: demo.apiKey,
    webhookSecret: demo.webhookSecret,
    accountingWebhookSecret: demo.accounting.webhookSecret,
    ordersFile: path.join(DATA_DIR, 'demo-store-orders.json'),
    ownerPassword: owner.password,
    log: say,
    // "Pay without leaving the store" on loopback's address, another site than the checkout's localhost: the cross-site case.
    embedding: { storeUrl: `http://127.0.0.1:${launcher.DEMO_MERCHANT_PORT}`, scriptIntegrity: EMBED_SCRIPT_INTEGRITY },
  });
  closers.push(demoStore.close);

  const stack = {
    apiUrl: config.apiBaseUrl,
    checkoutUrl: config.checkoutBaseUrl,
    temporalAddress: config.temporal.address,
    temporalUiUrl: config.temporalUiUpstream ? `${config.checkoutBaseUrl}${TEMPORAL_UI_PATH}` : (infrastructure.temporalUiUrl ?? null),
    databaseUrl: config.databaseUrl,
  };
  writeFileSync(path.join(DATA_DIR, 'stack.json'), JSON.stringify(stack, null, 2) + '\n', { mode: 0o600 });

  // The API reference's own example, for the Demo Store and returning to its pages.
  const example = CREATE_CART_EXAMPLE.cartObject;
  const body = JSON.stringify({
    cartObject: {
      store: { ...example.store, platformUuid: demo.platformUuid },
      cart: { ...example.cart, merchantUrls: { successUrl: `${demoStoreUrl}/orders`, failureUrl: `${demoStoreUrl}/orders` } },
    },
  });
  say(`
Hosted Checkout is running (${config.environment}).

  Demo store       ${demoStoreUrl}   ← start here: buy, pay with the sandbox values, watch the webhooks, refund
                   its orders and refunds ask for the store owner's password: ${owner.password}
                   (kept in ${ownerPasswordFile}${owner.created ? ', created now' : ''})
                   "Pay without leaving the store" pays in a frame on http://127.0.0.1:${launcher.DEMO_MERCHANT_PORT}, another site than the checkout's

  API              ${stack.apiUrl}            (health: ${stack.apiUrl}/readyz, reference: ${stack.apiUrl}/docs)
  Checkout page    ${stack.checkoutUrl}/?token=<cartId>
  Dashboard        ${stack.checkoutUrl}/dashboard   The Demo Store: ${dashboardSignIn}.
                   Bootstrap: apiKey from demo-merchant.json (as owner); operators: operatorToken from ${path.join(DATA_DIR, 'local-secrets.json')}
  Worker metrics   ${workerMetrics.url}/metrics   (Authorization: Bearer <metricsToken of ${path.join(DATA_DIR, 'local-secrets.json')}>)
  Temporal UI      ${stack.temporalUiUrl ?? '(external Temporal server)'}   (operators, signed in to the dashboard; workflows are named cart-<cartId>)
  Temporal         ${stack.temporalAddress}
  PostgreSQL       ${stack.databaseUrl.replace(/:[^:@/]+@/, ':***@')}
  Demo merchant    ${path.join(DATA_DIR, 'demo-merchant.json')}  (platformUuid ${demo.platformUuid}, API key, webhook secret)
                   its webhooks go to ${demoStoreUrl}/webhooks, and its refunds also to ${demo.accounting.url}
                   (a second endpoint, subscribed to order_refunded only, with its own secret); its orders are kept in ${path.join(DATA_DIR, 'demo-store-orders.json')}
  Stack details    ${path.join(DATA_DIR, 'stack.json')}

Or create a cart by hand, as the store's server does:

  curl -s ${stack.apiUrl}/v2/public/api/cart/ -H 'Content-Type: application/json' -d '${body}'

then open ${stack.checkoutUrl}/?token=<cartId from the response>.
Sandbox values: OTP ${config.sandboxOtp}, card 4111 1111 1111 1111, expiry 12/30, CVV 123.
Ctrl-C stops everything.
`);
} catch (err) {
  say(`Could not start: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
}
