import { defineSignal } from '@temporalio/workflow';
import type { DeliveryRequest } from '../../core/webhooks/delivery.js';

/**
 * The contract of the per-cart webhook delivery workflow (./workflow.ts): who starts
 * it, how events reach it (each request is a DeliveryRequest, core/webhooks/delivery.ts). Workflow-safe
 * imports only.
 */

export function webhookDeliveryWorkflowId(cartId: string): string {
  return `webhooks-${cartId}`;
}

export interface WebhookDeliveryInput {
  cartId: string;
  /** Bounds one attempt; the activity's own timeout is derived from it. From server config. */
  attemptTimeoutMs: number;
  /** Carried over by continue-as-new. */
  queued?: DeliveryRequest[];
}

export const deliverEventSignal = defineSignal<[DeliveryRequest]>('deliverEvent');
