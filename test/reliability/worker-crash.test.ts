import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SANDBOX_CARDS } from '../../core/checkout/payment-processors/sandbox.js';
import { ledgerRow, recordedEvents, type DrivenStack } from '../support/cart-session-driver.js';
import { checkoutThroughCrashes } from '../support/checkout-flow.js';
import { startTestAcquirer, type TestAcquirer } from '../support/http-processor.js';
import { findLeaksInDatabase, findLeaksInFiles } from '../support/leak-scan.js';
import { useOwnDatabase } from '../support/own-database.js';
import { createProcessStack, TEST_WORKER, writeWorkflowBundle, type ProcessStack } from '../support/process-stack.js';
import { planOf, reliabilitySettings, reportFigures } from '../support/reliability.js';
import type { RoleProcess } from '../support/role-process.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { deliveryFigures } from '../support/delivery-check.js';

/**
 * The worker process SIGKILLed at random moments of checkouts — creating, sending the code, charging,
 * recording the outcome, delivering webhooks — and once per "charged" trial exactly after the acquirer
 * charged and before its answer reached the activity; then restarted. Every session must end in its
 * one correct state, the acquirer must have charged each cart at most once, and every webhook arrive.
 */
describe('the worker killed at random moments of a checkout', () => {
  const { seed, trials } = reliabilitySettings('worker-crash');
  const database = useOwnDatabase('reliability_crash');
  let stack: ProcessStack;
  let acquirer: TestAcquirer;
  let receiver: WebhookReceiver;
  let worker: RoleProcess;
  let platformUuid: string;
  let driven: DrivenStack;
  /** Set while a "charged" trial waits: the next approved charge kills the worker, then says so. */
  let armed: { killed: () => void } | undefined;

  const startWorker = async () => {
    worker = await stack.start('worker', 'worker', { entry: TEST_WORKER });
  };

  beforeAll(async () => {
    acquirer = await startTestAcquirer({
      beforeAnswer: async (_cartId, result) => {
        if (!armed || result.outcome !== 'approved') return 'answer';
        const { killed } = armed;
        armed = undefined;
        await worker.stop('SIGKILL');
        killed();
        return 'drop';
      },
    });
    receiver = await startWebhookReceiver();
    const bundleFile = writeWorkflowBundle();
    stack = createProcessStack({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      env: {
        TEST_ACQUIRER_URL: acquirer.url,
        TEST_WORKFLOW_BUNDLE: bundleFile,
        WEBHOOK_RETRY_SCHEDULE_MS: '0,500,1000,2000,4000,8000,15000,30000,60000,120000',
      },
    });
    const [api] = await Promise.all([stack.start('api', 'api'), startWorker()]);
    driven = { ...stack, apiUrl: api.url };
    platformUuid = (await stack.createMerchant({ webhookUrl: receiver.url })).platformUuid;
  });
  afterAll(async () => {
    await stack?.stop();
    await acquirer?.close();
    await receiver?.close();
  });

  it('ends every session in one correct state, charges each cart at most once and delivers every event', { timeout: 1_500_000 }, async () => {
    const plan = planOf(
      fc.record({
        moment: fc.constantFrom('charged', 'random'),
        killAfterMs: fc.integer({ min: 0, max: 4_000 }),
        downForMs: fc.integer({ min: 0, max: 1_500 }),
        // Each trial pays at least once with the approved card, so a "charged" trial has a charge to strike.
        cards: fc.array(fc.constantFrom(SANDBOX_CARDS.approved, SANDBOX_CARDS.declined), { maxLength: 2 }).map((more) => [SANDBOX_CARDS.approved, ...more]),
      }),
      seed,
      trials,
    );
    const checkouts: Array<Promise<{ card: string; result: Awaited<ReturnType<typeof checkoutThroughCrashes>> }>> = [];
    const faults = { charged: 0, random: 0 };

    for (const trial of plan) {
      const started = trial.cards.map((card) => checkoutThroughCrashes(driven, platformUuid, card).then((result) => ({ card, result })));
      checkouts.push(...started);
      if (trial.moment === 'charged') {
        // The next approved charge kills the worker between the charge and its answer.
        await new Promise<void>((resolve) => {
          armed = { killed: resolve };
          setTimeout(() => {
            if (!armed) return;
            armed = undefined;
            void worker.stop('SIGKILL').then(resolve);
          }, 60_000);
        });
      } else {
        await new Promise((r) => setTimeout(r, trial.killAfterMs));
        await worker.stop('SIGKILL');
      }
      faults[trial.moment]++;
      await new Promise((r) => setTimeout(r, trial.downForMs));
      await startWorker();
    }

    const outcomes = await Promise.all(checkouts);
    const wrong: string[] = [];
    for (const { card, result } of outcomes) {
      const { cartId } = result.session;
      const expected = card === SANDBOX_CARDS.approved ? 'paid' : 'failed';
      const record = acquirer.records.get(cartId);
      if (result.status !== expected) wrong.push(`${cartId}: ${result.status}, expected ${expected}`);
      if ((await ledgerRow(stack, cartId))?.status !== expected) wrong.push(`${cartId}: ledger says ${(await ledgerRow(stack, cartId))?.status}`);
      if (expected === 'paid' && (record?.approvedCharges !== 1 || record.voided)) wrong.push(`${cartId}: paid but acquirer has ${JSON.stringify(record)}`);
      if (expected === 'failed' && record?.approvedCharges) wrong.push(`${cartId}: failed but charged`);
      const terminal = (await recordedEvents(stack, cartId)).filter((e) => e.status !== 'processing');
      if (terminal.length !== 1 || terminal[0]!.status !== expected) wrong.push(`${cartId}: final events ${JSON.stringify(terminal)}`);
    }

    const cartIds = outcomes.map((o) => o.result.session.cartId);
    const deliveries = await waitFor(
      async () => {
        const figures = await deliveryFigures(stack.db, receiver, cartIds);
        return figures.eventsLost === 0 ? figures : undefined;
      },
      { timeoutMs: 180_000, what: 'every recorded event acknowledged by the receiver' },
    ).catch(async () => deliveryFigures(stack.db, receiver, cartIds));

    const leaks = [...findLeaksInFiles(stack.logFiles(), stack.secrets()), ...(await findLeaksInDatabase(stack.db, 'crash-db', stack.secrets()))];
    reportFigures({
      suite: 'worker-crash',
      title: 'Worker SIGKILLed during checkouts, then restarted',
      seed,
      trials,
      faults: { 'worker SIGKILL after the acquirer charged, before its answer': faults.charged, 'worker SIGKILL at a random moment': faults.random },
      sessionsChecked: outcomes.length,
      sessionsLost: outcomes.filter(({ result }) => !['paid', 'failed'].includes(result.status)).length,
      ...deliveries,
      maxChargesPerCart: acquirer.maxChargesPerCart(),
      leaks,
      notes: wrong,
    });
    expect(wrong).toEqual([]);
    expect(acquirer.maxChargesPerCart()).toBeLessThanOrEqual(1);
    expect(deliveries.eventsLost).toBe(0);
    expect(deliveries.eventsOutOfOrder).toBe(0);
    expect(leaks).toEqual([]);
  });
});
