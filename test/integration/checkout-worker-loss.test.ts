import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { startSmtpCatcher } from '../support/otp-providers.js';
import { useOwnDatabase } from '../support/own-database.js';
import { createProcessStack, TEST_WORKER, writeWorkflowBundle, type ProcessStack } from '../support/process-stack.js';
import type { RoleProcess } from '../support/role-process.js';
import { workerHoldingSession, workerRunningActivity } from '../support/worker-holding.js';

/**
 * Two worker processes, and the one the customer's session needs SIGKILLed while the page waits on
 * it: the page must wait for the other one, never answer 503 (test/reliability/scale-out.test.ts
 * does the same under load, with the production entries).
 */
describe('the checkout page when a worker dies under a customer', () => {
  const database = useOwnDatabase('worker_loss');
  let stack: ProcessStack;
  let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
  let apiUrl: string;
  let webUrl: string;
  let workers: RoleProcess[] = [];
  let spawned = 0;
  /** The contact whose first code send dies with its worker, before the SMTP server takes the mail. */
  let held: { contact: string; cartId: string; killed?: RoleProcess } | undefined;

  const startWorker = async () => {
    const worker = await stack.start('worker', `worker-${++spawned}`, { entry: TEST_WORKER });
    workers.push(worker);
    return worker;
  };
  const kill = async (worker: RoleProcess) => {
    workers = workers.filter((w) => w !== worker);
    await worker.stop('SIGKILL');
  };

  beforeAll(async () => {
    smtp = await startSmtpCatcher({
      beforeAnswer: async (recipients) => {
        if (!held || held.killed || !recipients.includes(held.contact)) return;
        const sender = await workerRunningActivity(stack.temporal.client, cartWorkflowId(held.cartId), workers);
        if (!sender) return;
        held.killed = sender;
        await kill(sender);
      },
    });
    stack = createProcessStack({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      env: { TEST_WORKFLOW_BUNDLE: writeWorkflowBundle(), SMTP_URL: smtp.url, OTP_EMAIL_FROM: 'Checkout <codes@checkout.example>' },
    });
    const [api, web] = await Promise.all([stack.start('api', 'api'), stack.start('web', 'web'), startWorker(), startWorker()]);
    [apiUrl, webUrl] = [api.url, web.url];
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await smtp?.close();
  });

  const newSession = async (contact: string) => {
    const { platformUuid } = await stack.createMerchant();
    const cartId = await createCartId(apiUrl, validCartRequest(platformUuid));
    return { cartId, visit: await visitCheckout(webUrl, cartId), contact };
  };
  const follow = (res: Response, cookie: string) => fetch(`${webUrl}${res.headers.get('location')}`, { redirect: 'manual', headers: { cookie } });

  it('sends the code from the other worker when the one sending it dies between accept and completion', { timeout: 120_000 }, async () => {
    const { cartId, visit, contact } = await newSession('held@example.com');
    held = { contact, cartId };

    const started = Date.now();
    const res = await postCheckoutForm(webUrl, '/contact', cartId, visit, { contact });
    const elapsedMs = Date.now() - started;
    console.info(`code send whose worker died answered ${res.status} in ${elapsedMs} ms`);

    expect(held.killed, 'the send reached the SMTP server from a worker').toBeDefined();
    expect(res.status).toBe(303);
    const page = await follow(res, visit.cookie);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('action="/code"');
    // The dead worker's mail, then the other worker's retry.
    expect(smtp.messages.filter((m) => [m.to].flat().some((to) => to?.text.includes(contact)))).toHaveLength(2);
  });

  it('answers a page load from the other worker when the worker holding the session dies', { timeout: 120_000 }, async () => {
    if (workers.length < 2) await startWorker();
    const { cartId, visit, contact } = await newSession('reload@example.com');
    expect((await postCheckoutForm(webUrl, '/contact', cartId, visit, { contact })).status).toBe(303);
    const holder = await workerHoldingSession(stack.temporal.client, cartWorkflowId(cartId), workers);
    expect(holder, 'a live worker holds the session').toBeDefined();

    const started = Date.now();
    const load = fetch(`${webUrl}/?token=${cartId}`, { headers: { cookie: visit.cookie } });
    await kill(holder!);
    const res = await load;
    const elapsedMs = Date.now() - started;
    console.info(`page load whose session's worker died answered ${res.status} in ${elapsedMs} ms`);

    expect(res.status).toBe(200);
    expect(await res.text()).toContain('action="/code"');
  });
});
