import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { dashboardClient } from '../support/dashboard-client.js';
import { signInToDemoStore } from '../support/demo-store.js';
import { waitFor } from '../support/wait-for.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const READY_LINE = 'Ctrl-C stops everything.';

/** `npm start` as a newcomer runs it, on ports and in a data folder of its own. */
function launch(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

/** Processes whose command line names the data folder: the stack's PostgreSQL and Temporal server. */
const processesUsing = (dataDir: string) => spawnSync('pgrep', ['-f', dataDir], { encoding: 'utf8' }).stdout.trim();

describe('npm start', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hosted-checkout-start-'));
  // PostgreSQL runs as the `postgres` user when we are root: it must be able to reach its folder.
  chmodSync(dataDir, 0o755);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs the whole stack, prints the demo store first, sells through it, prints a curl that creates a cart whose page renders, stops clean on SIGINT, and restarts on the same data', async () => {
    const [postgres, temporal, temporalUi, api, web, demo, workerMetrics, sdkMetrics] = await Promise.all(Array.from({ length: 8 }, () => freePort()));
    const env = {
      HOSTED_CHECKOUT_DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(postgres),
      TEMPORAL_PORT: String(temporal),
      TEMPORAL_UI_PORT: String(temporalUi),
      API_PORT: String(api),
      WEB_PORT: String(web),
      DEMO_MERCHANT_PORT: String(demo),
      WORKER_METRICS_PORT: String(workerMetrics),
      TEMPORAL_SDK_METRICS_ADDRESS: `127.0.0.1:${sdkMetrics}`,
      LOG_LEVEL: 'warn',
    };

    const first = launch(env);
    await waitFor(() => (first.output().includes(READY_LINE) ? true : undefined), { timeoutMs: 90_000, what: `npm start to be ready:\n${first.output()}` });
    const printed = first.output();
    const storeUrl = `http://localhost:${demo}`;
    // The demo store is the first address of the summary: it is where a newcomer starts.
    const summary = printed.slice(printed.indexOf('Hosted Checkout is running'));
    expect(summary.match(/https?:\/\/[^\s/]+/)?.[0]).toBe(storeUrl);
    expect(printed).toContain(`http://localhost:${api}`);
    expect(printed).toContain(`http://localhost:${web}/?token=<cartId>`);
    expect(printed).toContain(`http://localhost:${web}/dashboard/temporal`);

    const stack = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8'));
    expect(stack).toMatchObject({
      apiUrl: `http://localhost:${api}`,
      checkoutUrl: `http://localhost:${web}`,
      temporalAddress: `127.0.0.1:${temporal}`,
      // The dev server's UI (on TEMPORAL_UI_PORT), served by the dashboard to signed-in operators.
      temporalUiUrl: `http://localhost:${web}/dashboard/temporal`,
    });
    expect(stack.databaseUrl).toMatch(new RegExp(`^postgres://.*@127\\.0\\.0\\.1:${postgres}/`));
    const demoMerchant = JSON.parse(readFileSync(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
    expect(demoMerchant).toMatchObject({
      platformUuid: expect.any(String),
      webhookUrl: `http://localhost:${demo}/webhooks`,
      webhookSecret: expect.stringMatching(/^whsec_/),
      apiKey: expect.stringMatching(/^sk_sandbox_/),
    });

    // The store owner's password: generated into the data folder on first start, printed, and the only way into the orders.
    const ownerPasswordFile = path.join(dataDir, 'demo-store-owner-password');
    const ownerPassword = readFileSync(ownerPasswordFile, 'utf8').trim();
    expect(ownerPassword).toMatch(/^[\w-]{24}$/);
    expect(statSync(ownerPasswordFile).mode & 0o777).toBe(0o600);
    expect(summary).toContain(ownerPassword);
    expect((await fetch(`${storeUrl}/orders`, { redirect: 'manual' })).status).toBe(303);
    const owner = await signInToDemoStore(storeUrl, ownerPassword);
    expect((await fetch(`${storeUrl}/orders`, { headers: { cookie: owner.cookie }, redirect: 'manual' })).status).toBe(200);

    // The store sells through the stack: its form post creates the cart and sends the customer to the checkout.
    expect(await (await fetch(storeUrl)).text()).toContain('Pay with Hosted Checkout');
    const bought = await fetch(`${storeUrl}/checkout`, {
      method: 'POST',
      headers: { origin: storeUrl, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'qty-tea-towel=1',
      redirect: 'manual',
    });
    expect(bought.status).toBe(303);
    const storeCheckout = new URL(bought.headers.get('location')!);
    expect(`${storeCheckout.origin}${storeCheckout.pathname}`).toBe(`http://localhost:${web}/`);
    expect((await fetch(storeCheckout)).status).toBe(200);
    const storeCartId = storeCheckout.searchParams.get('token')!;

    // The printed curl, run as printed.
    const curl = printed
      .split('\n')
      .find((line) => line.trim().startsWith('curl '))!
      .trim();
    const created = spawnSync('sh', ['-c', curl], { encoding: 'utf8' });
    const { data } = JSON.parse(created.stdout) as { data: { cartId: string } };
    const page = await fetch(`${stack.checkoutUrl}/?token=${data.cartId}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Demo Store');
    expect((await fetch(`http://localhost:${temporalUi}/dashboard/temporal/`)).status).toBe(200);
    expect(printed).toContain(`http://localhost:${web}/dashboard`);
    const signIn = await dashboardClient(stack.checkoutUrl, '127.0.0.1').signIn(demoMerchant.apiKey);
    expect(signIn.location).toBe('/dashboard/orders');

    // The worker's metrics, printed with the rest, behind the scrape token npm start generated.
    const metricsUrl = `http://localhost:${workerMetrics}/metrics`;
    expect(printed).toContain(metricsUrl);
    const { operatorToken, metricsToken } = JSON.parse(readFileSync(path.join(dataDir, 'local-secrets.json'), 'utf8'));
    expect((await fetch(metricsUrl)).status).toBe(401);
    expect((await fetch(metricsUrl, { headers: { authorization: `Bearer ${operatorToken}` } })).status).toBe(401);
    const metrics = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    expect(metrics).toContain('# TYPE checkout_payments_total counter');
    expect(metrics).toMatch(/^temporal_\w+\{[^}]*task_queue="hosted-checkout"/m);

    // The Temporal UI, through the dashboard: operators only.
    const operator = dashboardClient(stack.checkoutUrl, '127.0.0.1');
    expect((await operator.get('/dashboard/temporal/')).location).toBe('/dashboard/sign-in/operator');
    await operator.signInAsOperator(operatorToken);
    const ui = await operator.get('/dashboard/temporal/');
    expect(ui.status).toBe(200);
    expect(ui.body).toContain('/dashboard/temporal/');

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('Stopped.');
    expect(processesUsing(dataDir)).toBe('');

    const second = launch(env);
    await waitFor(() => (second.output().includes(READY_LINE) ? true : undefined), { timeoutMs: 90_000, what: `the second npm start:\n${second.output()}` });
    expect(JSON.parse(readFileSync(path.join(dataDir, 'demo-merchant.json'), 'utf8')).platformUuid).toBe(demoMerchant.platformUuid);
    expect(readFileSync(ownerPasswordFile, 'utf8').trim()).toBe(ownerPassword);
    expect(second.output()).not.toContain('Applied migrations');
    // The cart of the first run is still there: its session survived the restart, and so did the store's order.
    expect((await fetch(`${stack.checkoutUrl}/?token=${data.cartId}`)).status).toBe(200);
    expect(await (await fetch(`${storeUrl}/orders`, { headers: { cookie: owner.cookie } })).text()).toContain(storeCartId);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(processesUsing(dataDir)).toBe('');
  }, 240_000);
});
