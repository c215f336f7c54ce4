import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { newWebhookSecret } from '../../core/webhooks/signing.js';
import { EXAMPLES_DIR, goEnv, missingToolchain, unprovisioned, venvPython, type ExampleLanguage } from '../../scripts/examples-toolchains.js';
import { cartSessionDriver } from '../support/cart-session-driver.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The language-neutral way to get events to a laptop (docs/webhooks.md "Developing on a laptop"): the
 * event stream read by a few lines of Python or Go that sign each event with the developer's own
 * secret. The docs show these files as they are; here each runs against the stack.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const builds = mkdtempSync(path.join(tmpdir(), 'forwarders-'));
afterAll(() => rmSync(builds, { recursive: true, force: true }));

const FORWARDERS: Record<'python' | 'go', { source: string; command: () => { command: string; args: string[] } }> = {
  python: { source: 'python/forward.py', command: () => ({ command: venvPython(), args: [path.join(EXAMPLES_DIR, 'python/forward.py')] }) },
  go: {
    source: 'go/forward/main.go',
    command: () => {
      const binary = path.join(builds, 'forward-go');
      const built = spawnSync('go', ['build', '-o', binary, './forward'], {
        cwd: path.join(EXAMPLES_DIR, 'go'),
        env: { ...process.env, ...goEnv(true) },
        encoding: 'utf8',
      });
      if (built.status !== 0) throw new Error(`go build failed (run \`npm run -s examples:provision\` first?):\n${built.stderr}`);
      return { command: binary, args: [] };
    },
  },
};

describe('the event stream forwarders of docs/webhooks.md (examples/python/forward.py, examples/go/forward)', () => {
  const stack = useTestStack();
  const docs = readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8');

  for (const [language, forwarder] of Object.entries(FORWARDERS) as Array<[ExampleLanguage & ('python' | 'go'), (typeof FORWARDERS)['go']]>) {
    const absent = missingToolchain(language);
    it.skipIf(absent !== undefined && process.env.CI !== 'true')(
      `${language}: forwards a paid checkout’s events, in order, each verifying with the developer’s secret`,
      async () => {
        if (absent) throw new Error(`no ${absent} on PATH: CI runs every forwarder`);
        const notReady = unprovisioned(language);
        if (notReady) throw new Error(notReady);
        // What the docs show is what runs.
        expect(docs).toContain(readFileSync(path.join(EXAMPLES_DIR, forwarder.source), 'utf8'));

        const merchant = await stack.createMerchant();
        const local = await startWebhookReceiver();
        const secret = newWebhookSecret();
        const { command, args } = forwarder.command();
        const run = spawn(command, [...args, local.url], {
          env: { ...process.env, HOSTED_CHECKOUT_API_URL: stack.apiUrl, HOSTED_CHECKOUT_API_KEY: merchant.apiKey, WEBHOOK_SECRET: secret },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
        try {
          await waitFor(() => (output.includes('connected: waiting for events') ? true : undefined), {
            timeoutMs: 20_000,
            what: `the forwarder to connect:\n${output}`,
          });
          const driver = cartSessionDriver(stack, merchant.platformUuid);
          const session = await driver.verifiedSession();
          const paying = Date.now();
          expect((await driver.pay(session, SANDBOX_CARDS.approved)).status).toBe('paid');
          const recorded = await stack.db<{ id: string }[]>`
            select id from webhook_events where cart_id = ${session.cartId} order by sequence`;
          expect(recorded.length).toBeGreaterThan(0);
          await waitFor(() => (local.requests.length >= recorded.length ? true : undefined), { what: `every event forwarded:\n${output}` });
          const forwarded = local.requests.map(
            (request) => new Webhook(secret).verify(request.rawBody, request.headers as Record<string, string>) as { id: string },
          );
          expect(forwarded.map((event) => event.id)).toEqual(recorded.map((event) => event.id));
          // Each line is printed once the answer is complete, which the receiver sees a moment before.
          await waitFor(() => (recorded.every((event) => output.includes(`${event.id} 200`)) ? true : undefined), {
            what: `a line per forwarded event with its answer:\n${output}`,
          });
          console.info(
            `forwarder ${language}: ${forwarded.length} events verified, payment to the last one forwarded ${local.requests.at(-1)!.at - paying} ms`,
          );
        } finally {
          run.kill('SIGTERM');
          if (run.exitCode === null && run.signalCode === null) await once(run, 'exit');
          await local.close();
        }
      },
      60_000,
    );
  }
});
