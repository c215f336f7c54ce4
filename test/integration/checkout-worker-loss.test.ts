import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropSessionMirror } from '../../core/checkout/session-mirror.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { startSmtpCatcher } from '../support/otp-providers.js';
import { useOwnDatabase } from '../support/own-database.js';
import { createProcessStack, TEST_WORKER, writeWorkflowBundle, type ProcessStack } from '../support/process-stack.js';
import type { RoleProcess } from '../support/role-process.js';
import { waitFor } from '../support/wait-for.js';
import { workerHoldingSession } from '../support/worker-holding.js';

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
    // The bank's return link the worker signs must lead to the web process (its default base URL: WEB_PORT on localhost).
    const worker = await stack.start('worker', `worker-${++spawned}`, {
      entry: TEST_WORKER,
      env: { CHECKOUT_BASE_URL: `http://localhost:${new URL(webUrl).port}` },
    });
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
        const sender = await workerHoldingSession(stack.temporal.client, cartWorkflowId(held.cartId), workers);
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
    const [api, web] = await Promise.all([stack.start('api', 'api'), stack.start('web', 'web')]);
    [apiUrl, webUrl] = [api.url, web.url];
    await Promise.all([startWorker(), startWorker()]);
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

  it('sends the code from the other worker when the one sending it dies before the SMTP server takes the mail', { timeout: 120_000 }, async () => {
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
    // Without the page's copy of the state (after a refusal, say), the load asks the workflow: that query is what this holds.
    await dropSessionMirror(stack.db, cartId);
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

  it(
    'completes a 3-D Secure payment, one charge, when the worker holding the session dies while the customer is at the bank',
    { timeout: 120_000 },
    async () => {
      if (workers.length < 2) await startWorker();
      const { cartId, visit, contact } = await newSession('bank@example.com');
      expect((await postCheckoutForm(webUrl, '/contact', cartId, visit, { contact })).status).toBe(303);
      expect((await postCheckoutForm(webUrl, '/code', cartId, visit, { code: stack.config.sandboxOtp })).status).toBe(303);
      expect((await postCheckoutForm(webUrl, '/card', cartId, visit, { number: '4000 0027 6000 3184', expiry: '12/30', cvv: '123' })).status).toBe(303);
      // The page sends the customer to the challenge (the sandbox's, on this page's own origin).
      const challenge = await waitFor(
        async () => {
          const status = await fetch(`${webUrl}/status?token=${cartId}`, { redirect: 'manual', headers: { cookie: visit.cookie } });
          const location = status.headers.get('location');
          return status.status === 303 && location?.includes('/3ds/sandbox-challenge') ? new URL(location, webUrl) : undefined;
        },
        { what: 'the redirect to the 3-D Secure challenge' },
      );

      const holder = await workerHoldingSession(stack.temporal.client, cartWorkflowId(cartId), workers);
      expect(holder, 'a live worker holds the session').toBeDefined();
      await kill(holder!);

      const answered = await fetch(`${webUrl}${challenge.pathname}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: webUrl },
        body: new URLSearchParams({ payment: challenge.searchParams.get('payment')!, return: challenge.searchParams.get('return')!, result: 'authenticated' }),
      });
      expect(answered.status).toBe(303);
      const returnUrl = new URL(answered.headers.get('location')!);
      expect(returnUrl.pathname).toBe('/3ds/return');

      const started = Date.now();
      const back = await fetch(`${webUrl}${returnUrl.pathname}${returnUrl.search}`, { redirect: 'manual' });
      console.info(`3-D Secure return whose session's worker died answered ${back.status} in ${Date.now() - started} ms`);
      expect(back.status).toBe(303);
      expect(back.headers.get('location')).toBe(`https://store.example/success?cartId=${cartId}`);

      const [ledger] = await stack.db<{ status: string; three_d_secure: string }[]>`select status, three_d_secure from carts where cart_id = ${cartId}`;
      expect(ledger).toEqual({ status: 'paid', three_d_secure: 'authenticated' });
      const charges = await stack.db<{ charge_id: string }[]>`select charge_id from sandbox_charges where idempotency_key = ${cartId}`;
      expect(charges).toHaveLength(1);
      const created = await stack.db`select 1 from webhook_events where cart_id = ${cartId} and event = 'order_created'`;
      expect(created).toHaveLength(1);
    },
  );
});
