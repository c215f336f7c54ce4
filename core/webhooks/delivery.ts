/**
 * What the delivery workflow (workflows/webhook-delivery/) is asked to send and how one delivery ends:
 * the contract between that workflow, its activity (activities/webhook-delivery/) and whoever asks for
 * a delivery. Workflow-safe: types and constants only.
 */

/** Why an attempt is made: the normal schedule, or an operator's replay or recovery. */
export type DeliveryTrigger = 'scheduled' | 'replay' | 'recover';

/** Ids only: the body is read from the database by the activity, so history stays small and secret-free. */
export interface DeliveryRequest {
  eventId: string;
  /**
   * The endpoint to send it to. Absent from requests made before a merchant could have several
   * endpoints: those go to the merchant's first endpoint (core/merchants/merchant-store.ts).
   */
  endpointId?: string;
  trigger: DeliveryTrigger;
  /**
   * The cart's last event (core/webhooks/events.ts isLastCartEvent): once it is delivered and nothing
   * waits for any endpoint, the workflow ends at once instead of idling, so thousands of sessions expiring together
   * do not keep thousands of idle workflows and their timers. Absent from every other event.
   */
  last?: true;
}

/** Hands one event to its cart's delivery workflow; safe to repeat. */
export type RequestDelivery = (cartId: string, request: DeliveryRequest) => Promise<void>;

export type DeliveryOutcome = 'delivered' | 'already_delivered' | 'failed' | 'skipped' | 'endpoint_disabled';

/** Failure types the delivery activity throws and the workflow's retry policy names. */
export const DELIVERY_FAILURE = {
  /** The event is not in the database: nothing to retry. */
  eventMissing: 'WebhookEventMissing',
  /** The endpoint failed this attempt; the activity set the delay before the next. */
  attemptFailed: 'WebhookAttemptFailed',
} as const;
