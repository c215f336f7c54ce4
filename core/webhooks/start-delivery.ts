import type { Client } from '@temporalio/client';
import type { Config } from '../config.js';
import { deliverEventSignal, WEBHOOK_DELIVERY_WORKFLOW, webhookDeliveryWorkflowId, type DeliveryRequest, type WebhookDeliveryInput } from './delivery-messages.js';

/**
 * Hands an event to its cart's delivery workflow, starting the workflow when none runs. Safe to
 * repeat: the workflow ignores a request it already holds, and the activity skips an event already
 * delivered.
 */
export async function requestDelivery(client: Client, config: Pick<Config, 'temporal' | 'webhooks'>, cartId: string, request: DeliveryRequest): Promise<void> {
  const input: WebhookDeliveryInput = { cartId, attemptTimeoutMs: config.webhooks.timeoutMs };
  await client.workflow.signalWithStart(WEBHOOK_DELIVERY_WORKFLOW, {
    workflowId: webhookDeliveryWorkflowId(cartId),
    taskQueue: config.temporal.taskQueue,
    args: [input],
    signal: deliverEventSignal,
    signalArgs: [request],
  });
}
