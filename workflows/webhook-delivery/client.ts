import type { Client } from '@temporalio/client';
import type { Config } from '../../core/config.js';
import { withDeadline, type Temporal } from '../../core/temporal/connection.js';
import type { RequestDelivery } from '../../core/webhooks/delivery.js';
import { deliverEventSignal, webhookDeliveryWorkflowId, type WebhookDeliveryInput } from './messages.js';
import { webhookDelivery } from './workflow.js';

/**
 * How an event is handed to its cart's delivery workflow through `client`, starting the workflow when
 * none runs: the RequestDelivery that the event-recording activities (worker/activities.ts), replay
 * (core/webhooks/replay.ts) and recovery (core/webhooks/recovery.ts) are given. Safe to repeat: the
 * workflow ignores a request it already holds, and the activity skips an event already delivered.
 * Runs outside the workflow sandbox.
 */
export function deliveryRequests(client: Client, config: Pick<Config, 'temporal' | 'webhooks'>): RequestDelivery {
  return async (cartId, request) => {
    const input: WebhookDeliveryInput = { cartId, attemptTimeoutMs: config.webhooks.timeoutMs };
    await client.workflow.signalWithStart(webhookDelivery, {
      workflowId: webhookDeliveryWorkflowId(cartId),
      taskQueue: config.temporal.taskQueue,
      args: [input],
      signal: deliverEventSignal,
      signalArgs: [request],
    });
  };
}

/**
 * deliveryRequests for a request handler (the API, the dashboard): each hand-over ends within
 * `deadlineMs`, so a Temporal that does not answer fails the request rather than holding it.
 */
export function boundedDeliveryRequests(temporal: Temporal, config: Pick<Config, 'temporal' | 'webhooks'>, deadlineMs: number): RequestDelivery {
  const requestDelivery = deliveryRequests(temporal.client, config);
  return (cartId, request) => withDeadline(temporal, deadlineMs, () => requestDelivery(cartId, request));
}
