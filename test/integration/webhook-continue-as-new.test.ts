import { afterAll, beforeAll, expect, it } from 'vitest';
import { deliveryRequests } from '../../workflows/webhook-delivery/client.js';
import { webhookDeliveryWorkflowId } from '../../workflows/webhook-delivery/messages.js';
import { cartEvents } from '../support/cart-events.js';
import { createCartId, validCartRequest } from '../support/fixtures.js';
import { CONTINUE_AS_NEW_AFTER_EVENTS } from '../support/test-temporal-settings.js';
import { useTestStack } from '../support/test-stack.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const stack = useTestStack();
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

it(`continues as new past ${CONTINUE_AS_NEW_AFTER_EVENTS} history events, carrying queued events over in order`, async () => {
  const merchant = await stack.createMerchant({ webhookUrl: receiver.url });
  const cartId = await createCartId(stack.apiUrl, validCartRequest(merchant.platformUuid));
  const events = cartEvents(stack);
  const ids = [
    (await events.recordCartEvent({ cartId, event: 'order_updated', status: 'processing', payment: { brand: 'visa', last4: '1111' } })).eventId,
    (await events.recordCartEvent({ cartId, event: 'order_created', status: 'paid', payment: { brand: 'visa', last4: '1111' } })).eventId,
    (await events.recordCartEvent({ cartId, event: 'order_refunded', status: 'refunded', payment: { brand: 'visa', last4: '1111' } })).eventId,
  ];
  const received = () => receiver.requests.map((r) => String(r.headers['webhook-id']));
  await waitFor(() => (received().length === 3 ? true : undefined), { what: 'the first three deliveries' });

  // Each round queues three replays at once, so the workflow often holds several when it is told to
  // continue as new; each round must still arrive whole and in order. Handed to the workflow directly,
  // as a replay behind a pending event is (core/webhooks/replay.ts): these, delivered, would be sent at once.
  const requestDelivery = deliveryRequests(stack.temporal.client, stack.config);
  const [delivery] = await stack.db<{ endpoint_id: string }[]>`select endpoint_id from webhook_deliveries where event_id = ${ids[0]!}`;
  const endpointId = delivery!.endpoint_id;
  const rounds = 8;
  for (let round = 1; round <= rounds; round++) {
    for (const id of ids) await requestDelivery(cartId, { eventId: id, endpointId, trigger: 'replay' });
    await waitFor(() => (received().length === 3 * (round + 1) ? true : undefined), { what: `round ${round} of replays` });
  }
  const deliveries = received();
  for (let round = 0; round <= rounds; round++) expect(deliveries.slice(3 * round, 3 * round + 3)).toEqual(ids);

  const runs = await waitFor(
    async () => {
      const found: string[] = [];
      for await (const run of stack.temporal.client.workflow.list({ query: `WorkflowId = "${webhookDeliveryWorkflowId(cartId)}"` }))
        found.push(run.status.name);
      return found.includes('CONTINUED_AS_NEW') ? found : undefined;
    },
    { what: 'a run that continued as new' },
  );
  expect(runs.length).toBeGreaterThanOrEqual(2);
});
