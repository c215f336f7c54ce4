import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { disputeWorkflows } from '../../workflows/dispute/client.js';
import { disputeWorkflowId } from '../../workflows/dispute/messages.js';
import { paidCarts } from '../support/merchant-api.js';
import { TEST_WORKER, writeWorkflowBundle } from '../support/process-stack.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';

/** The dispute is due this long after it opens; its reminder comes REMINDER_BEFORE_MS before: time to kill a worker and start another. */
const DUE_IN_MS = 100_000;
const REMINDER_BEFORE_MS = 40_000;

/**
 * The worker process that runs a dispute's workflow SIGKILLed while the dispute waits for its reminder,
 * and another started: the reminder's timer is Temporal's, so the new worker sends it, once, and the
 * merchant's answer then goes through as before.
 */
describe('a dispute when the worker running it dies mid-way', () => {
  const stack = useTestStack();
  const workers: ChildProcess[] = [];
  // The dispute runs on a queue of its own, polled only by the worker processes this test kills.
  const disputeQueue = `dispute-crash-${randomUUID()}`;
  const workflowBundleFile = writeWorkflowBundle();
  afterAll(() => {
    for (const w of workers) w.kill('SIGKILL');
  });

  async function startWorkerProcess(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', TEST_WORKER], {
      env: {
        ...process.env,
        TEST_WORKFLOW_BUNDLE: workflowBundleFile,
        CHECKOUT_ENV: 'sandbox',
        DATABASE_URL: stack.config.databaseUrl,
        DATA_ENCRYPTION_KEY: inject('dataEncryptionKey'),
        TEMPORAL_ADDRESS: stack.config.temporal.address,
        TEMPORAL_TASK_QUEUE: disputeQueue,
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    workers.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => (output.includes('worker polling') ? true : undefined), { what: 'the worker process to poll', timeoutMs: 60_000 });
    return child;
  }

  const eventsOf = (cartId: string) =>
    stack.db<
      { event: string; subject: string | null }[]
    >`select event, subject from webhook_events where cart_id = ${cartId} and subject is not null order by sequence`;

  it('sends the reminder once from the worker started after the first died, then takes the answer', { timeout: 240_000 }, async () => {
    const merchant = await stack.createMerchant();
    const cartId = await paidCarts(stack, merchant).paidCart();
    const first = await startWorkerProcess();

    const disputeId = `dp_sandbox_${randomUUID().replace(/-/g, '')}`;
    const config = { ...stack.config, temporal: { ...stack.config.temporal, taskQueue: disputeQueue } };
    const disputes = disputeWorkflows(stack.temporal.client, { ...config, disputes: { ...config.disputes, remindersBeforeMs: [REMINDER_BEFORE_MS] } });
    const openedAt = Date.now();
    await disputes.tell({
      disputeId,
      cartId,
      platformUuid: merchant.platformUuid,
      decidedBy: 'sandbox',
      facts: { status: 'needs_response', amount: 4498, reason: 'fraudulent', evidenceDueBy: new Date(openedAt + DUE_IN_MS).toISOString() },
    });
    await waitFor(async () => ((await eventsOf(cartId)).length === 1 ? true : undefined), { what: 'order_disputed', timeoutMs: 20_000 });

    first.kill('SIGKILL');
    await startWorkerProcess();
    expect(Date.now() - openedAt, 'the new worker runs before the reminder is due').toBeLessThan(DUE_IN_MS - REMINDER_BEFORE_MS);

    await waitFor(async () => ((await eventsOf(cartId)).length === 2 ? true : undefined), { what: 'the reminder', timeoutMs: 90_000 });
    const accepted = await fetch(`${stack.apiUrl}/v2/merchant/orders/${cartId}/dispute/accept`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.apiKey}` },
    });
    expect(accepted.status).toBe(202);
    expect(await stack.temporal.client.workflow.getHandle(disputeWorkflowId(disputeId)).result()).toBe('lost');
    expect(await eventsOf(cartId)).toEqual([
      { event: 'order_disputed', subject: `dispute:${disputeId}:needs_response` },
      { event: 'order_updated', subject: `dispute:${disputeId}:needs_response:r1` },
      { event: 'order_updated', subject: `dispute:${disputeId}:lost` },
    ]);
  });
});
