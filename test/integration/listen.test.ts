import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiApp } from '../../api/app.js';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { WEBHOOK_EVENT_NAMES } from '../../core/webhooks/events.js';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { freePort } from '../../scripts/free-port.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { merchantApi } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type ReceivedRequest } from '../support/webhook-receiver.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE = path.join(ROOT, 'packages/listen');

/**
 * The package as a merchant without this repository gets it: its `npm pack` tarball, installed
 * outside the checkout, where an import of the product would fail.
 */
const outside = mkdtempSync(path.join(tmpdir(), 'listen-pack-'));
afterAll(() => rmSync(outside, { recursive: true, force: true }));
function packedTarball(): string {
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', outside], { cwd: PACKAGE, encoding: 'utf8' }).trim().split('\n').pop()!;
  return path.join(outside, name);
}
/** The installed command, run directly so that the test's SIGTERM reaches it (npx would stand between). */
function installedFromTarball(): string {
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--prefix', outside, packedTarball()], { stdio: 'ignore' });
  return path.join(outside, 'node_modules', '.bin', 'hosted-checkout-listen');
}

/** What a merchant's endpoint checks before trusting a delivery (docs/webhooks.md): both signature headers, over the raw body. */
function verifiedWith(secret: string, request: ReceivedRequest) {
  const headers = request.headers as Record<string, string>;
  const standard = new Webhook(secret).verify(request.rawBody, headers) as { id: string };
  const { 'webhook-signature': _standardOne, ...clientSignatureOnly } = headers;
  const client = verifyWebhook(request.rawBody, clientSignatureOnly, secret);
  expect(client.valid, JSON.stringify(client)).toBe(true);
  return standard;
}

describe('hosted-checkout-listen (packages/listen, `npm run listen`)', () => {
  const stack = useTestStack();

  it('forwards a paid checkout’s events as deliveries signed with its printed secret, and follows the API through a restart missing and repeating nothing', async () => {
    // The API the command follows is one this test can stop and start again on the same port, as a restarted process would be.
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const startApi = async () => {
      const server = serve({ fetch: createApiApp(stack).fetch, port, hostname: '127.0.0.1' }) as Server;
      await once(server, 'listening');
      return server;
    };
    let api = await startApi();
    const delivered = await startWebhookReceiver();
    const local = await startWebhookReceiver();
    const merchant = await stack.createMerchant({ name: 'Laptop Store', webhookUrl: delivered.url });
    const driver = cartSessionDriver(stack, merchant.platformUuid);

    const listener = spawn(installedFromTarball(), ['--forward-to', local.url, '--events', 'order_created,order_updated'], {
      cwd: outside,
      env: { ...process.env, HOSTED_CHECKOUT_API_URL: apiUrl, HOSTED_CHECKOUT_API_KEY: merchant.apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    listener.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    listener.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    try {
      const secret = await waitFor(() => (/connected: waiting for events/.test(output) ? /secret for this run is (whsec_\S+)/.exec(output)?.[1] : undefined), {
        timeoutMs: 20_000,
        what: 'the command to print its secret and connect',
      });
      expect(secret).not.toBe(merchant.webhookSecret);

      const first = await driver.verifiedSession();
      const paying = Date.now();
      expect((await driver.pay(first, SANDBOX_CARDS.approved)).status).toBe('paid');
      const forwardedCreated = await waitFor(
        () =>
          local.requests.find(
            (r) => r.headers['x-client-event'] === 'order_created' && (JSON.parse(r.rawBody) as { data: { cartId: string } }).data.cartId === first.cartId,
          ),
        { what: 'the paid checkout’s order_created on the developer’s machine' },
      );
      const deliveredCreated = await waitFor(() => delivered.requests.find((r) => r.headers['x-client-event'] === 'order_created'), {
        what: 'the real delivery',
      });
      const firstEvents = await stack.db<{ id: string }[]>`select id from webhook_events where cart_id = ${first.cartId} order by sequence`;
      await waitFor(() => (local.requests.length === firstEvents.length ? true : undefined), { what: 'every event of the paid checkout' });

      for (const request of local.requests) verifiedWith(secret, request);
      // What the real delivery of the same event carried: the same body, byte for byte, under the same headers.
      expect(forwardedCreated.rawBody).toBe(deliveredCreated.rawBody);
      expect(Object.keys(forwardedCreated.headers).sort()).toEqual(Object.keys(deliveredCreated.headers).sort());
      for (const header of ['webhook-id', 'x-client-event', 'x-client-delivery-attempt', 'content-type', 'user-agent'])
        expect(forwardedCreated.headers[header], header).toBe(deliveredCreated.headers[header]);
      expect(() => new Webhook(secret).verify(deliveredCreated.rawBody, deliveredCreated.headers as Record<string, string>)).toThrow();
      // The command prints its line once the answer is complete, which the receiver sees a moment before.
      const line = new RegExp(`order_created +${forwardedCreated.headers['webhook-id'] as string} +cart ${first.cartId} +→ 200 in \\d+ ms`);
      await waitFor(() => (line.test(output) ? true : undefined), { what: 'the command’s line for the forwarded order_created' });

      // The API goes away while events happen: an expired session (order_cancelled, not asked for) and a second paid checkout.
      api.close();
      api.closeAllConnections();
      await waitFor(() => (/lost the API/.test(output) ? true : undefined), { what: 'the command to notice the API is gone' });
      const expired = await driver.createSession();
      expect((await merchantApi(stack, merchant.apiKey).expire(expired.cartId)).status).toBe(200);
      await waitFor(async () => ((await stack.db`select 1 from webhook_events where cart_id = ${expired.cartId}`).length > 0 ? true : undefined), {
        what: 'the expired session’s order_cancelled',
      });
      const second = await driver.verifiedSession();
      expect((await driver.pay(second, SANDBOX_CARDS.approved)).status).toBe('paid');
      const forwardedBeforeRestart = local.requests.length;
      api = await startApi();

      await waitFor(() => local.requests.find((r) => (JSON.parse(r.rawBody) as { data: { cartId: string } }).data.cartId === second.cartId), {
        timeoutMs: 30_000,
        what: 'the second checkout’s events after the restart',
      });
      expect(output).toMatch(/connected again: resuming after the last event received/);
      const wanted = await stack.db<{ id: string }[]>`
        select id from webhook_events where platform_uuid = ${merchant.platformUuid} and event in ('order_created', 'order_updated') order by created_at, id`;
      await waitFor(() => (local.requests.length >= wanted.length ? true : undefined), { what: 'every event asked for' });
      const forwarded = local.requests.map((r) => verifiedWith(secret, r).id);
      expect(forwarded).toEqual(wanted.map((e) => e.id));
      expect(new Set(forwarded).size).toBe(forwarded.length);
      expect(forwarded.length).toBeGreaterThan(forwardedBeforeRestart);

      console.info(
        `listen: payment to forwarded order_created ${forwardedCreated.at - paying} ms (real delivery ${deliveredCreated.at - paying} ms); ${forwarded.length} events forwarded, none twice`,
      );
    } finally {
      listener.kill('SIGTERM');
      await once(listener, 'exit');
      api.close();
      api.closeAllConnections();
      await Promise.all([delivered.close(), local.close()]);
    }
    expect(listener.exitCode, output).toBe(0);
  }, 120_000);

  it('runs with npx from its tarball, nothing else installed', async () => {
    const help = spawn('npx', ['--yes', '--prefer-offline', '--package', packedTarball(), 'hosted-checkout-listen', '--help'], {
      cwd: outside,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    help.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const [code] = (await once(help, 'exit')) as [number];
    expect(code).toBe(0);
    expect(stdout).toContain('hosted-checkout-listen --forward-to http://localhost:4000/webhooks');
  }, 60_000);

  it('refuses an unknown event name, in the command and in the stream’s query, and a Last-Event-ID it did not send', async () => {
    // `npx <path>`, as a developer with the repository (or its packages/listen folder) runs it.
    const run = spawn('npx', ['--yes', PACKAGE, '--forward-to', 'http://localhost:4000/webhooks', '--events', 'order_created,order_paid'], {
      cwd: ROOT,
      env: { ...process.env, HOSTED_CHECKOUT_API_URL: stack.apiUrl, HOSTED_CHECKOUT_API_KEY: 'unused' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code] = (await once(run, 'exit')) as [number];
    expect(code).toBe(2);
    // The package's own list of names is the product's, in its order.
    expect(stderr).toContain(`--events: "order_paid" is not an event name; the events are ${WEBHOOK_EVENT_NAMES.join(', ')}`);

    const merchant = await stack.createMerchant();
    const api = merchantApi(stack, merchant.apiKey);
    const unknownType = await api.get('/events/stream?types=order_created,order_paid');
    expect(unknownType.status).toBe(400);
    expect(await unknownType.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'types', message: expect.stringContaining('"order_paid" is not an event name') }],
    });
    const foreignId = await fetch(`${stack.apiUrl}/v2/merchant/events/stream`, {
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'last-event-id': 'not-an-id' },
    });
    expect(foreignId.status).toBe(400);
    expect(await foreignId.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'Last-Event-ID' }] });
    expect((await fetch(`${stack.apiUrl}/v2/merchant/events/stream`)).status).toBe(401);
  });
});
