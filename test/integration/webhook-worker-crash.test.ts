import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { verifyWebhook } from '../../core/webhooks/verify.js';
import { cartEvents } from '../support/cart-events.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { TEST_WORKER, writeWorkflowBundle } from '../support/process-stack.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

describe('a worker killed in the middle of a delivery', () => {
  const stack = useTestStack({ WEBHOOK_TIMEOUT_MS: '1000' });
  let receiver: WebhookReceiver;
  const workers: ChildProcess[] = [];
  // Deliveries run on a queue of their own, polled only by the worker processes this test kills.
  const deliveryQueue = `crash-${randomUUID()}`;
  const workflowBundleFile = writeWorkflowBundle();

  beforeAll(async () => {
    // The first request is never answered: the worker handling it dies first.
    receiver = await startWebhookReceiver((_, nth) => (nth === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 }));
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await receiver?.close();
  });

  /**
   * The production worker in its own process, on the run's workflow bundle: worker/main.ts bundles the
   * workflows itself, which took over 60 s with two test runs side by side (npm-start.test.ts runs it).
   */
  async function startWorkerProcess(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', TEST_WORKER], {
      env: {
        ...process.env,
        TEST_WORKFLOW_BUNDLE: workflowBundleFile,
        CHECKOUT_ENV: 'sandbox',
        DATABASE_URL: stack.config.databaseUrl,
        DATA_ENCRYPTION_KEY: inject('dataEncryptionKey'),
        TEMPORAL_ADDRESS: stack.config.temporal.address,
        TEMPORAL_TASK_QUEUE: deliveryQueue,
        WEBHOOK_TIMEOUT_MS: '1000',
        // Its receiver listens on this machine.
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

  it('still delivers: the attempt that died is recorded and retried by the next worker, and the event is processed once', { timeout: 120_000 }, async () => {
    const merchant = await stack.createMerchant({ webhookUrl: receiver.url });
    const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));

    const first = await startWorkerProcess();
    const config = { ...stack.config, temporal: { ...stack.config.temporal, taskQueue: deliveryQueue } };
    const { eventId } = await cartEvents({ ...stack, config }).recordCartEvent({
      cartId,
      event: 'order_created',
      status: 'paid',
      payment: { brand: 'visa', last4: '1111' },
    });
    await waitFor(() => (receiver.requests.length === 1 ? true : undefined), { what: 'the first attempt to arrive' });
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    await startWorkerProcess();
    await waitFor(
      async () => {
        const [row] = await stack.db<{ delivery_status: string }[]>`select delivery_status from webhook_events where id = ${eventId}`;
        return row?.delivery_status === 'delivered' ? true : undefined;
      },
      { what: 'delivery after the restart', timeoutMs: 60_000 },
    );

    expect(receiver.processed.size).toBe(1);
    expect(receiver.requests).toHaveLength(2);
    const retried = receiver.requests[1]!;
    expect(retried.headers['webhook-id']).toBe(eventId);
    expect(Number(retried.headers['x-client-delivery-attempt'])).toBeGreaterThanOrEqual(2);
    expect(verifyWebhook(retried.rawBody, retried.headers as Record<string, string>, merchant.webhookSecret).valid).toBe(true);
    // The attempt that died with its worker is on record too, without an outcome.
    const attempts = await stack.db<{ http_status: number | null; error_class: string | null }[]>`
      select http_status, error_class from webhook_attempts where event_id = ${eventId} order by id`;
    expect(attempts).toEqual([
      { http_status: null, error_class: 'no_outcome' },
      { http_status: 200, error_class: null },
    ]);
  });
});
