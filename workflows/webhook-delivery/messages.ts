import { defineSignal } from '@temporalio/workflow';

/**
 * The contract of the per-cart webhook delivery workflow (./workflow.ts): who starts
 * it, how events reach it. Workflow-safe imports only.
 */

export function webhookDeliveryWorkflowId(cartId: string): string {
  return `webhooks-${cartId}`;
}

/** Why an attempt is made: the normal schedule, or an operator's replay or recovery. */
export type DeliveryTrigger = 'scheduled' | 'replay' | 'recover';

/** Ids only: the body is read from the database by the activity, so history stays small and secret-free. */
export interface DeliveryRequest {
  eventId: string;
  trigger: DeliveryTrigger;
  /**
   * The cart's last event (core/webhooks/events.ts isLastCartEvent): once it is delivered and nothing
   * waits, the workflow ends at once instead of idling, so thousands of sessions expiring together
   * do not keep thousands of idle workflows and their timers. Absent from every other event.
   */
  last?: true;
}

export interface WebhookDeliveryInput {
  cartId: string;
  /** Bounds one attempt; the activity's own timeout is derived from it. From server config. */
  attemptTimeoutMs: number;
  /** Carried over by continue-as-new. */
  queued?: DeliveryRequest[];
}

export type DeliveryOutcome = 'delivered' | 'already_delivered' | 'failed' | 'skipped' | 'endpoint_disabled';

/** Failure types the delivery activity throws and the workflow's retry policy names. */
export const DELIVERY_FAILURE = {
  /** The event is not in the database: nothing to retry. */
  eventMissing: 'WebhookEventMissing',
  /** The endpoint failed this attempt; the activity set the delay before the next. */
  attemptFailed: 'WebhookAttemptFailed',
} as const;

export const deliverEventSignal = defineSignal<[DeliveryRequest]>('deliverEvent');
