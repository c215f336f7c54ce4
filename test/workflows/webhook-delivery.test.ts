import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { WebhookDeliveryActivities } from '../../activities/webhook-delivery/index.js';
import { DELIVERY_FAILURE, type DeliveryOutcome, type DeliveryRequest } from '../../core/webhooks/delivery.js';
import { deliverEventSignal, webhookDeliveryWorkflowId } from '../../workflows/webhook-delivery/messages.js';
import { webhookDelivery } from '../../workflows/webhook-delivery/workflow.js';
import { waitFor } from '../support/wait-for.js';
import { useWorkflowEnvironment } from '../support/workflow-environment.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * deliverWebhook as a mock: every attempt is logged as `<eventId>:<trigger>#<attempt>`, and `answer`
 * decides each (a promise that stays pending holds the delivery in flight).
 */
function deliveryActivities(answer: (request: DeliveryRequest, attempt: number) => Promise<DeliveryOutcome> = () => Promise.resolve('delivered')) {
  const attempts: string[] = [];
  const counts = new Map<string, number>();
  const activities = {
    deliverWebhook: (request: DeliveryRequest) => {
      const key = `${request.eventId}:${request.trigger}`;
      const attempt = (counts.get(key) ?? 0) + 1;
      counts.set(key, attempt);
      attempts.push(`${key}#${attempt}`);
      return answer(request, attempt);
    },
  } satisfies Partial<WebhookDeliveryActivities>;
  return { activities, attempts };
}

describe('webhook delivery workflow, activities mocked', () => {
  const environment = useWorkflowEnvironment(['deliverWebhook']);
  /** As requestDelivery does: signal the cart's workflow, starting it if none runs. */
  const request = (cartId: string, delivery: DeliveryRequest) =>
    environment.env.client.workflow.signalWithStart(webhookDelivery, {
      workflowId: webhookDeliveryWorkflowId(cartId),
      taskQueue: environment.taskQueue,
      args: [{ cartId, attemptTimeoutMs: 5_000 }],
      signal: deliverEventSignal,
      signalArgs: [delivery],
    });

  it('delivers a cart’s events one at a time in the order they were recorded, and ends after the last', async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const mocks = deliveryActivities((r) => (r.eventId === 'evt_1' ? firstHeld.then(() => 'delivered' as const) : Promise.resolve('delivered')));
    environment.mockActivities(mocks.activities);
    const cartId = `cart_${randomUUID()}`;
    const handle = await request(cartId, { eventId: 'evt_1', trigger: 'scheduled' });
    await request(cartId, { eventId: 'evt_2', trigger: 'scheduled' });
    await request(cartId, { eventId: 'evt_3', trigger: 'scheduled', last: true });
    await waitFor(() => mocks.attempts[0], { what: 'the first attempt' });
    await sleep(300);
    // evt_1 is still in flight: nothing after it was attempted.
    expect(mocks.attempts).toEqual(['evt_1:scheduled#1']);
    releaseFirst();
    await handle.result();
    expect(mocks.attempts).toEqual(['evt_1:scheduled#1', 'evt_2:scheduled#1', 'evt_3:scheduled#1']);
  });

  it('retries a failing attempt at the delay the activity sets, and holds the next event until then', async () => {
    const mocks = deliveryActivities((r, attempt) =>
      r.eventId === 'evt_1' && attempt < 3
        ? Promise.reject(ApplicationFailure.create({ message: 'HTTP 503', type: DELIVERY_FAILURE.attemptFailed, nextRetryDelay: '100 ms' }))
        : Promise.resolve('delivered'),
    );
    environment.mockActivities(mocks.activities);
    const cartId = `cart_${randomUUID()}`;
    const handle = await request(cartId, { eventId: 'evt_1', trigger: 'scheduled' });
    await request(cartId, { eventId: 'evt_2', trigger: 'scheduled', last: true });
    await handle.result();
    expect(mocks.attempts).toEqual(['evt_1:scheduled#1', 'evt_1:scheduled#2', 'evt_1:scheduled#3', 'evt_2:scheduled#1']);
  });

  it('moves on past an event that does not exist instead of retrying it', async () => {
    const mocks = deliveryActivities((r) =>
      r.eventId === 'evt_gone' ? Promise.reject(ApplicationFailure.nonRetryable('no such event', DELIVERY_FAILURE.eventMissing)) : Promise.resolve('delivered'),
    );
    environment.mockActivities(mocks.activities);
    const cartId = `cart_${randomUUID()}`;
    const handle = await request(cartId, { eventId: 'evt_gone', trigger: 'scheduled' });
    await request(cartId, { eventId: 'evt_2', trigger: 'scheduled', last: true });
    await handle.result();
    expect(mocks.attempts).toEqual(['evt_gone:scheduled#1', 'evt_2:scheduled#1']);
  });

  it('queues a replay asked while the same event is being delivered, and drops a repeat of a waiting request', async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const mocks = deliveryActivities((r) =>
      r.trigger === 'scheduled' && r.eventId === 'evt_1' ? firstHeld.then(() => 'delivered' as const) : Promise.resolve('delivered'),
    );
    environment.mockActivities(mocks.activities);
    const cartId = `cart_${randomUUID()}`;
    const handle = await request(cartId, { eventId: 'evt_1', trigger: 'scheduled' });
    await waitFor(() => mocks.attempts[0], { what: 'the scheduled attempt' });
    // An operator replays evt_1 while its scheduled delivery is in flight, and the retry of that request repeats it.
    await request(cartId, { eventId: 'evt_1', trigger: 'replay' });
    await request(cartId, { eventId: 'evt_1', trigger: 'replay' });
    await request(cartId, { eventId: 'evt_2', trigger: 'scheduled', last: true });
    releaseFirst();
    await handle.result();
    expect(mocks.attempts).toEqual(['evt_1:scheduled#1', 'evt_1:replay#1', 'evt_2:scheduled#1']);
  });
});
