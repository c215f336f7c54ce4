import { defineSignal } from '@temporalio/workflow';

/**
 * The contract of the per-cart webhook delivery workflow (workflows/webhook-delivery.ts): who starts
 * it, how events reach it. Workflow-safe imports only.
 */

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDelivery';

export function webhookDeliveryWorkflowId(cartId: string): string {
  return `webhooks-${cartId}`;
}

/** Why an attempt is made: the normal schedule, or an operator's replay or recovery. */
export type DeliveryTrigger = 'scheduled' | 'replay' | 'recover';

/** Ids only: the body is read from the database by the activity, so history stays small and secret-free. */
export interface DeliveryRequest {
  eventId: string;
  trigger: DeliveryTrigger;
}

export interface WebhookDeliveryInput {
  cartId: string;
  /** Bounds one attempt; the activity's own timeout is derived from it. From server config. */
  attemptTimeoutMs: number;
  /** Carried over by continue-as-new. */
  queued?: DeliveryRequest[];
}

export type DeliveryOutcome = 'delivered' | 'already_delivered' | 'failed' | 'skipped' | 'endpoint_disabled';

export const deliverEventSignal = defineSignal<[DeliveryRequest]>('deliverEvent');
