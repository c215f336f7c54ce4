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
  /**
   * Attempts already made before the hand-off: the cart session tries its event's first delivery
   * itself (activities/cart-session/ledger.ts) and hands over only what that attempt did not settle.
   * The delivery numbers its attempts after these, so the retry table goes on where it was, and
   * makes the next one no earlier than `retryAt` (ISO 8601), the table's delay after the failed one.
   */
  attemptsMade?: number;
  retryAt?: string;
}

/**
 * One attempt to deliver a request (activities/webhook-delivery/index.ts): `attempt` is its row in the
 * retry table; `deadline` (epoch ms) may end its request before the configured timeout would. Throws an
 * ApplicationFailure of type DELIVERY_FAILURE.attemptFailed when it failed and the schedule goes on.
 */
export type AttemptDelivery = (request: DeliveryRequest, options: { attempt: number; signal?: AbortSignal; deadline?: number }) => Promise<DeliveryOutcome>;

/**
 * How long a cart session's own first attempt at its step's event may take, at every endpoint at once
 * (activities/cart-session/ledger.ts): the customer waits on it, as on the success redirect's head
 * start (web/checkout/leave.ts), and it must end well inside the step's local activity timeout.
 */
export const SESSION_ATTEMPT_TIMEOUT_MS = 3_000;

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
