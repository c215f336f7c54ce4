import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS } from '../../core/temporal/worker-loss.js';
import { cartWorkflowId } from '../../workflows/cart-session/messages.js';
import { postCheckoutForm, visitCheckout } from '../support/checkout-forms.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { startTestAcquirer, type TestAcquirer } from '../support/http-processor.js';
import { useOwnDatabase } from '../support/own-database.js';
import { createProcessStack, TEST_WORKER, writeWorkflowBundle, type ProcessStack } from '../support/process-stack.js';
import type { RoleProcess } from '../support/role-process.js';
import { waitFor } from '../support/wait-for.js';

/** The charge activity's start-to-close timeout (workflows/cart-session/payment-activities.ts): what a lost charge waited before 1.3. */
const CHARGE_START_TO_CLOSE_MS = 30_000;

/**
 * Two worker processes, and the one running a customer's charge SIGKILLed after the acquirer charged
 * and before its answer arrived. A 1.3 session's charge heartbeats, so the other worker charges again
 * (the same idempotency key: the same charge) once the heartbeats stop, well before the charge's
 * 30 s start-to-close timeout would have let Temporal retry it.
 */
describe('a charge whose worker dies while the acquirer answers', () => {
  const database = useOwnDatabase('charge_worker_loss');
  let stack: ProcessStack;
  let acquirer: TestAcquirer;
  let apiUrl: string;
  let webUrl: string;
  let workers: RoleProcess[] = [];
  let held: { cartId: string; killedAt?: number; retriedAt?: number } | undefined;

  /** The worker Temporal gave the session's pending charge to, by the identity it reported (`<pid>@<host>`). */
  const chargingWorker = async (cartId: string) => {
    const { raw } = await stack.temporal.client.workflow.getHandle(cartWorkflowId(cartId)).describe();
    const identity = raw.pendingActivities?.find((a) => a.activityType?.name === 'chargePayment')?.lastWorkerIdentity;
    return workers.find((w) => identity?.startsWith(`${w.child.pid}@`));
  };

  beforeAll(async () => {
    acquirer = await startTestAcquirer({
      beforeAnswer: async (cartId) => {
        if (cartId !== held?.cartId) return 'answer';
        if (held.killedAt !== undefined) {
          held.retriedAt ??= Date.now();
          return 'answer';
        }
        const worker = await chargingWorker(cartId);
        if (!worker) return 'answer';
        workers = workers.filter((w) => w !== worker);
        await worker.stop('SIGKILL');
        held.killedAt = Date.now();
        return 'drop';
      },
    });
    stack = createProcessStack({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      env: { TEST_WORKFLOW_BUNDLE: writeWorkflowBundle(), TEST_ACQUIRER_URL: acquirer.url },
    });
    const start = (label: string) => stack.start('worker', label, { entry: TEST_WORKER });
    const [api, web, ...started] = await Promise.all([stack.start('api', 'api'), stack.start('web', 'web'), start('worker-1'), start('worker-2')]);
    [apiUrl, webUrl] = [api.url, web.url];
    workers = started;
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    await acquirer?.close();
  });

  it('charges again from the other worker within seconds of the heartbeats stopping, once in all', { timeout: 120_000 }, async () => {
    const { platformUuid } = await stack.createMerchant();
    const cartId = await createCartId(apiUrl, validCartRequest(platformUuid));
    held = { cartId };
    const visit = await visitCheckout(webUrl, cartId);
    expect((await postCheckoutForm(webUrl, '/contact', cartId, visit, { contact: 'charged@example.com' })).status).toBe(303);
    expect((await postCheckoutForm(webUrl, '/code', cartId, visit, { code: stack.config.sandboxOtp })).status).toBe(303);
    expect((await postCheckoutForm(webUrl, '/card', cartId, visit, { number: SANDBOX_CARDS.approved, expiry: '12/30', cvv: '123' })).status).toBe(303);

    const status = await waitFor(
      async () => {
        const [row] = await stack.db<{ status: string }[]>`select status from carts where cart_id = ${cartId}`;
        return row?.status === 'paid' || row?.status === 'failed' ? row.status : undefined;
      },
      { what: 'the session paid after its worker died', timeoutMs: 60_000 },
    );
    expect(held.killedAt, 'the worker running the charge was killed while the acquirer answered').toBeDefined();
    expect(held.retriedAt, 'the charge reached the acquirer again').toBeDefined();
    const retriedAfterMs = held.retriedAt! - held.killedAt!;
    console.info(`charge retried ${retriedAfterMs} ms after its worker died (heartbeat timeout ${WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS} ms)`);
    // The heartbeat timeout, then the retry's 1 s interval and a loaded machine's scheduling: far under 30 s.
    expect(retriedAfterMs).toBeLessThan(CHARGE_START_TO_CLOSE_MS / 2);
    expect(status).toBe('paid');
    expect(acquirer.records.get(cartId)?.approvedCharges).toBe(1);
    const created = await stack.db`select 1 from webhook_events where cart_id = ${cartId} and event = 'order_created'`;
    expect(created).toHaveLength(1);
  });
});
