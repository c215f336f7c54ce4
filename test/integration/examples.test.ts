import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { newWebhookSecret } from '../../core/webhooks/signing.js';
import {
  EXAMPLE_LANGUAGES,
  EXAMPLES_DIR,
  goEnv,
  missingToolchain,
  unprovisioned,
  venvPython,
  type ExampleLanguage,
} from '../../scripts/examples-toolchains.js';
import { freePort } from '../../scripts/free-port.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { merchantApi } from '../support/merchant-api.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Each merchant example of examples/ as its developer runs it, against the real stack: its own
 * process, its webhook endpoint the merchant's real one. create → sandbox complete → verified
 * order_created → refund, and the order_refunded that confirms it, one line per language.
 */

const builds = mkdtempSync(path.join(tmpdir(), 'examples-'));
afterAll(() => rmSync(builds, { recursive: true, force: true }));

/** How each example starts, as its README says; Go's is built first, from the provisioned module cache only. */
function commandOf(language: ExampleLanguage): { command: string; args: string[]; cwd: string; env: Record<string, string> } {
  const cwd = path.join(EXAMPLES_DIR, language);
  if (language === 'go') {
    const binary = path.join(builds, 'merchant-go');
    const built = spawnSync('go', ['build', '-o', binary, '.'], { cwd, env: { ...process.env, ...goEnv(true) }, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`go build failed (run \`npm run -s examples:provision\` first?):\n${built.stderr}`);
    return { command: binary, args: [], cwd, env: {} };
  }
  if (language === 'python') return { command: venvPython(), args: ['server.py'], cwd, env: { PYTHONUNBUFFERED: '1' } };
  return { command: process.execPath, args: ['server.js'], cwd, env: {} };
}

/** The customer's part of a sandbox checkout, by API: code, card, challenge through the session's workflow. */
function completeInSandbox(apiUrl: string, apiKey: string, cartId: string) {
  return fetch(`${apiUrl}/v2/sandbox/carts/${encodeURIComponent(cartId)}/complete`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: 'approved' }),
  });
}

describe('merchant examples (examples/go, examples/python, examples/node)', () => {
  const stack = useTestStack();

  for (const language of EXAMPLE_LANGUAGES) {
    // Only a machine without the language may skip it, and CI never: there it fails, saying what is missing.
    const absent = missingToolchain(language);
    it.skipIf(absent !== undefined && process.env.CI !== 'true')(
      `${language}: create with an Idempotency-Key → sandbox complete → verified order_created fulfils → refund → verified order_refunded`,
      async () => {
        if (absent) throw new Error(`no ${absent} on PATH: CI runs every example`);
        const notReady = unprovisioned(language);
        if (notReady) throw new Error(notReady);
        const started = performance.now();
        const port = await freePort();
        const merchant = await stack.createMerchant({ name: `${language} Store`, webhookUrl: `http://127.0.0.1:${port}/webhooks` });
        const { command, args, cwd, env } = commandOf(language);
        const built = performance.now();
        const example: ChildProcess = spawn(command, args, {
          cwd,
          env: {
            ...process.env,
            ...env,
            PORT: String(port),
            HOSTED_CHECKOUT_API_URL: stack.apiUrl,
            HOSTED_CHECKOUT_API_KEY: merchant.apiKey,
            HOSTED_CHECKOUT_PLATFORM_UUID: merchant.platformUuid,
            HOSTED_CHECKOUT_CHECKOUT_URL: stack.checkoutUrl,
            WEBHOOK_SECRET: merchant.webhookSecret,
            STORE_URL: 'https://store.example',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        example.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        example.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        const seen = (pattern: RegExp, what: string, timeoutMs = 20_000) =>
          waitFor(() => pattern.exec(output) ?? undefined, { timeoutMs, what: `${what}; the example said:\n${output}` });
        try {
          await seen(new RegExp(`listening on port ${port}`), `the ${language} example to listen`);
          const shop = `http://127.0.0.1:${port}`;
          const listening = performance.now();

          // A forged delivery (signed with another secret) is refused before anything is read from it.
          const forged = JSON.stringify({ id: 'evt_forged', event: 'order_created', data: { cartId: 'x', createdWith: 'api_key' } });
          const forgedAt = new Date();
          const forgedResponse = await fetch(`${shop}/webhooks`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'webhook-id': 'evt_forged',
              'webhook-timestamp': String(Math.floor(forgedAt.getTime() / 1000)),
              'webhook-signature': new Webhook(newWebhookSecret()).sign('evt_forged', forgedAt, forged),
            },
            body: forged,
          });
          expect(forgedResponse.status).toBe(400);

          // The customer presses Pay twice: the Idempotency-Key gives the one cart both times.
          const orderId = `o-${randomUUID()}`;
          const pay = () => fetch(`${shop}/orders/${orderId}/pay`, { method: 'POST', redirect: 'manual' });
          const first = await pay();
          expect(first.status, output).toBe(303);
          const location = first.headers.get('location')!;
          expect(location).toMatch(new RegExp(`^${stack.checkoutUrl}/\\?token=[\\w-]+$`));
          expect((await pay()).headers.get('location')).toBe(location);
          const cartId = new URL(location).searchParams.get('token')!;
          const carts = await stack.db<{ cartId: string }[]>`select cart_id as "cartId" from carts where platform_uuid = ${merchant.platformUuid}`;
          expect(carts.map((c) => c.cartId)).toEqual([cartId]);

          // A cart made without the API key and paid: signed and genuine, and still not fulfilled.
          const driver = cartSessionDriver(stack, merchant.platformUuid);
          const stranger = await driver.verifiedSession();
          expect((await driver.pay(stranger, SANDBOX_CARDS.approved)).status).toBe('paid');
          await seen(new RegExp(`order_created of cart ${stranger.cartId}: not one of my orders, ignored`), 'the stranger’s order_created, ignored');

          const completing = performance.now();
          const completed = await completeInSandbox(stack.apiUrl, merchant.apiKey, cartId);
          expect(completed.ok, await completed.clone().text()).toBe(true);
          const fulfilled = await seen(new RegExp(`fulfilled order ${orderId} \\(cart ${cartId}\\), verified event (evt_\\S+)`), 'the fulfilment');
          const fulfilledAt = performance.now();
          const [created] = await stack.db<{ id: string }[]>`select id from webhook_events where cart_id = ${cartId} and event = 'order_created'`;
          expect(fulfilled[1]).toBe(created!.id);

          const refund = await fetch(`${shop}/orders/${orderId}/refund`, { method: 'POST' });
          expect(refund.status, output).toBe(201);
          expect(await refund.json()).toMatchObject({ cartId, amount: 2500, status: 'succeeded' });
          await seen(new RegExp(`refunded order ${orderId} \\(cart ${cartId}\\), verified event evt_\\S+`), 'the order_refunded');
          const order = (await (await merchantApi(stack, merchant.apiKey).get(`/orders/${cartId}`)).json()) as { status: string; refundedTotal: number };
          expect(order).toMatchObject({ status: 'refunded', refundedTotal: 2500 });
          expect(output).not.toMatch(new RegExp(`fulfilled order \\S+ \\(cart ${stranger.cartId}\\)`));

          const ms = (from: number, to: number) => `${Math.round(to - from)} ms`;
          console.info(
            `example ${language.padEnd(6)}: create → sandbox complete → verified order_created → refund → verified order_refunded in ${ms(completing, performance.now())} (complete to fulfilment ${ms(completing, fulfilledAt)}; build ${ms(started, built)}, start ${ms(built, listening)})`,
          );
        } finally {
          example.kill('SIGTERM');
          if (example.exitCode === null) await once(example, 'exit');
        }
      },
      90_000,
    );
  }
});
