/// <reference lib="dom" />
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { ensureTemporalCli } from '../../scripts/temporal-cli.js';
import { startTemporalDevServer, type TemporalDevServer } from '../../scripts/temporal-server.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { startSession } from '../../core/people/sessions.js';
import { DASHBOARD_PATH, dashboardSessions, SESSION_COOKIE } from '../../web/dashboard/session.js';
import { DASHBOARD_CODEC_PATH, TEMPORAL_UI_PATH } from '../../web/dashboard/temporal-ui.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { launchChromium, openPage, skipWithoutChromium } from '../support/chromium.js';
import { useTestStack } from '../support/test-stack.js';
import { TEST_TEMPORAL_DYNAMIC_CONFIG } from '../support/test-temporal-settings.js';

const { History } = temporal.api.history.v1;
const CONTACT = 'ui.decoded@example.com';

/** The run's Temporal server is headless: this file starts one with its Web UI, on ports of its own. */
const [temporalPort, uiPort] = [await freePort(), await freePort()];
const UI_URL = `http://localhost:${uiPort}`;

describe.skipIf(skipWithoutChromium())('the Temporal Web UI, in headless Chromium, decodes payloads through /codec', () => {
  let server: TemporalDevServer | undefined;
  // Declared before useTestStack: hooks run in order, so the server is up when the stack connects.
  beforeAll(async () => {
    server = await startTemporalDevServer({
      cli: await ensureTemporalCli(),
      port: temporalPort,
      uiPort,
      fastUnsafeStorage: true,
      dynamicConfig: TEST_TEMPORAL_DYNAMIC_CONFIG,
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const stack = useTestStack({
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_UI_ORIGINS: `http://localhost:${uiPort},http://127.0.0.1:${uiPort}`,
  });
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows an update's encrypted argument in clear, decoded by the API's codec endpoint", async () => {
    const driver = cartSessionDriver(stack, (await stack.createMerchant({ name: 'Decoded Shop' })).platformUuid);
    const session = await driver.createSession();
    await driver.sendCode(session, CONTACT);

    // What the server stores, read without the codec: the contact is not in it.
    const plain = new Client({ connection: stack.temporal.connection, namespace: stack.config.temporal.namespace });
    const raw = History.fromObject(await plain.workflow.getHandle(session.handle.workflowId).fetchHistory());
    const rawBytes = Buffer.from(History.encode(raw).finish()).toString('latin1');
    expect(rawBytes).toContain('binary/encrypted');
    expect(rawBytes).not.toContain(CONTACT);

    // The UI and the API on the same host name (ports aside): same site, so the SameSite=None cookie
    // is sent, and `localhost` is a secure context, so Chromium keeps a Secure cookie over http.
    const codecEndpoint = `${stack.apiUrl.replace('127.0.0.1', 'localhost')}/codec`;
    const { context, page } = await openPage(browser, { width: 1280 });
    const session204 = await context.request.post(`${codecEndpoint}/session`, {
      headers: { Authorization: `Bearer ${stack.config.operatorToken}` },
    });
    expect(session204.status()).toBe(204);
    expect((await context.cookies(codecEndpoint)).map((c) => c.name)).toEqual(['checkout_operator']);

    // The UI's own "Codec Server" settings, as temporalio/ui (2.42.1 in CLI 1.5.1) persists them:
    // localStorage keys of src/lib/stores/data-encoder-config.ts, JSON-encoded values. Set before the
    // UI's scripts run, so no clicks in its settings drawer are needed.
    await context.addInitScript(
      ({ endpoint }) => {
        localStorage.setItem('endpoint', JSON.stringify(endpoint));
        localStorage.setItem('includeCredentials', 'true');
        localStorage.setItem('passAccessToken', 'false');
        localStorage.setItem('overrideRemoteCodecConfiguration', 'true');
      },
      { endpoint: codecEndpoint },
    );
    // Statuses of the UI's POSTs to the codec endpoint (the CORS preflights are not reported).
    const decodes: number[] = [];
    page.on('response', (response) => {
      if (response.url() === `${codecEndpoint}/decode` && response.request().method() === 'POST') decodes.push(response.status());
    });

    await page.goto(`${UI_URL}/namespaces/default/workflows/${session.handle.workflowId}`);
    // The history tab lists the events; the update's argument shows once its row is expanded.
    await page.getByText('Workflow Execution Update Accepted').click({ timeout: 30_000 });
    // Its "Accepted Request" shows `input.args.payloads[0]` as the codec endpoint decoded it.
    await page.getByText(`"contact": "${CONTACT}"`).first().waitFor({ timeout: 30_000 });
    expect(decodes.length).toBeGreaterThan(0);
    expect(decodes.every((status) => status === 200)).toBe(true);

    // The session in words (workflows/cart-session/operator-details.ts), decoded by the same codec.
    await page.getByText('Decoded Shop (sandbox): €44.98, 3 items').first().waitFor({ timeout: 30_000 });
    // `DOCS_SCREENSHOT=1` refreshes the runbook's picture of a session as an operator sees it: the top of its page.
    if (process.env.DOCS_SCREENSHOT) {
      await page.goto(`${UI_URL}/namespaces/default/workflows/${session.handle.workflowId}`);
      await page.getByText('Decoded Shop (sandbox): €44.98, 3 items').first().waitFor({ timeout: 30_000 });
      await page.screenshot({ path: fileURLToPath(new URL('../../docs/temporal-ui-session.png', import.meta.url)) });
    }
  });
});

/** The UI `npm start` runs: served by the dashboard under /dashboard/temporal, decoding through /dashboard/codec. */
const [servedTemporalPort, servedUiPort] = [await freePort(), await freePort()];

describe.skipIf(skipWithoutChromium())('the Temporal Web UI behind the operator dashboard decodes after one sign-in', () => {
  let server: TemporalDevServer | undefined;
  beforeAll(async () => {
    server = await startTemporalDevServer({
      cli: await ensureTemporalCli(),
      port: servedTemporalPort,
      uiPort: servedUiPort,
      uiCodecEndpoint: DASHBOARD_CODEC_PATH,
      uiPublicPath: TEMPORAL_UI_PATH,
      fastUnsafeStorage: true,
      dynamicConfig: TEST_TEMPORAL_DYNAMIC_CONFIG,
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const stack = useTestStack({
    TEMPORAL_ADDRESS: `127.0.0.1:${servedTemporalPort}`,
    TEMPORAL_UI_UPSTREAM: `http://127.0.0.1:${servedUiPort}`,
  });
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("an operator follows the dashboard's link of a paid cart and reads it decoded; with the session expired, nothing decoded", async () => {
    const merchant = await stack.createMerchant({ name: 'Served Shop' });
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = await driver.createSession();
    await driver.sendCode(session, CONTACT);
    await driver.verify(session, await driver.sentCode(session));
    expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');

    const { context, page } = await openPage(browser, { width: 1280 });
    const decodes: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith(`${DASHBOARD_CODEC_PATH}/decode`) && response.request().method() === 'POST') decodes.push(response.status());
    });
    await page.goto(`${stack.checkoutUrl}/dashboard/sign-in/operator`);
    await page.getByLabel('Operator token').fill(stack.config.operatorToken!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/operator$/);
    await page.goto(`${stack.checkoutUrl}/dashboard/operator/carts?cartId=${session.cartId}`);
    const link = page.getByRole('link', { name: /Open in Temporal UI/ });
    const href = await link.getAttribute('href');
    expect(href).toBe(`${TEMPORAL_UI_PATH}/namespaces/default/workflows/cart-${session.cartId}`);
    // The link opens a new tab; the same URL in this one keeps the test to one page.
    await page.goto(`${stack.checkoutUrl}${href}`);
    await page.getByText('Served Shop (sandbox): €44.98, 3 items').first().waitFor({ timeout: 30_000 });
    // Newest first: the oldest update, sendCode, is the last one listed.
    await page.getByText('Workflow Execution Update Accepted').last().click({ timeout: 30_000 });
    await page.getByText(`"contact": "${CONTACT}"`).first().waitFor({ timeout: 30_000 });
    expect(decodes.length).toBeGreaterThan(0);
    expect(decodes.every((status) => status === 200)).toBe(true);
    // Nothing was set in the UI's own storage: the dashboard session alone did it.
    expect(await page.evaluate(() => [localStorage.getItem('endpoint'), localStorage.getItem('includeCredentials')])).toEqual([null, null]);

    // The session expired: an operator session whose row expired an hour ago, in place of the fresh
    // one. No UI, no codec.
    const expired = await startSession(stack.db, {
      platformUuid: undefined,
      role: 'operator_admin',
      credential: { operatorTokenDigest: dashboardSessions(stack.config, stack.db).operatorTokenDigest! },
      lifetimeMs: -3600_000,
    });
    await context.clearCookies({ name: SESSION_COOKIE });
    await context.addCookies([{ name: SESSION_COOKIE, value: expired, url: `${stack.checkoutUrl}${DASHBOARD_PATH}` }]);
    const refused = await context.request.post(`${stack.checkoutUrl}${DASHBOARD_CODEC_PATH}/decode`, { data: { payloads: [] }, maxRedirects: 0 });
    expect(refused.status()).toBe(303);
    await page.goto(`${stack.checkoutUrl}${href}`);
    await page.waitForURL(/\/dashboard\/sign-in\/operator$/);
    expect(await page.content()).not.toContain(CONTACT);
    expect(await page.content()).not.toContain('Served Shop (sandbox)');
    await context.close();
  });

  it("serves the UI on the card form's origin only under a strict CSP, never framed, and it still renders with no CSP violation", async () => {
    const merchant = await stack.createMerchant({ name: 'Walled Shop' });
    const driver = cartSessionDriver(stack, merchant.platformUuid);
    const session = await driver.createSession();
    await driver.sendCode(session, CONTACT);

    const { context, page } = await openPage(browser, { width: 1280 });
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
    /** Every answer under the UI's path: its URL, type and security headers. */
    const served: Array<{ url: string; type: string; csp: string | null; frame: string | null }> = [];
    page.on('response', (response) => {
      if (!new URL(response.url()).pathname.startsWith(TEMPORAL_UI_PATH)) return;
      const headers = response.headers();
      served.push({
        url: response.url(),
        type: headers['content-type'] ?? '',
        csp: headers['content-security-policy'] ?? null,
        frame: headers['x-frame-options'] ?? null,
      });
    });
    await page.goto(`${stack.checkoutUrl}/dashboard/sign-in/operator`);
    await page.getByLabel('Operator token').fill(stack.config.operatorToken!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/operator$/);

    await page.goto(`${stack.checkoutUrl}${TEMPORAL_UI_PATH}/namespaces/default/workflows/cart-${session.cartId}`);
    // It renders and decodes: the session in words, and the update's argument once its row is expanded.
    await page.getByText('Walled Shop (sandbox): €44.98, 3 items').first().waitFor({ timeout: 30_000 });
    await page.getByText('Workflow Execution Update Accepted').last().click({ timeout: 30_000 });
    await page.getByText(`"contact": "${CONTACT}"`).first().waitFor({ timeout: 30_000 });
    expect(violations).toEqual([]);

    const document = served.find((r) => r.type.startsWith('text/html'));
    expect(document, served.map((r) => r.url).join('\n')).toBeDefined();
    // The UI's inline bootstrap runs by its hash, with no 'unsafe-inline' for scripts.
    expect(document!.csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
    for (const response of served) {
      expect(response.csp, response.url).not.toBeNull();
      const directives = new Map(
        response.csp!.split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name!, values] as const;
        }),
      );
      expect(directives.get('default-src'), response.url).toEqual(["'none'"]);
      expect(directives.get('frame-ancestors'), response.url).toEqual(["'none'"]);
      expect(directives.get('base-uri'), response.url).toEqual(["'none'"]);
      expect(directives.get('object-src') ?? directives.get('default-src'), response.url).toEqual(["'none'"]);
      const scripts = directives.get('script-src') ?? [];
      expect(scripts, response.url).toContain("'self'");
      // Scripts: ours only; no inline script but the UI's own bootstrap by its hash, never eval.
      expect(
        scripts.filter((s) => s !== "'self'" && !/^'sha256-[A-Za-z0-9+/]+=*'$/.test(s)),
        response.url,
      ).toEqual([]);
      expect(directives.get('connect-src'), response.url).toEqual(["'self'"]);
      expect(response.frame, response.url).toBe('DENY');
    }
    await context.close();
  });
});
