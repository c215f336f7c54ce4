import { discardCartCards } from '../../core/checkout/card-vault.js';
import { recordCartStatus, type CartStatusChange } from '../../core/checkout/cart-ledger.js';
import type { Db } from '../../core/db/client.js';
import { ApplicationFailure } from '@temporalio/activity';
import { DELIVERY_FAILURE, SESSION_ATTEMPT_TIMEOUT_MS, type AttemptDelivery, type RequestDelivery } from '../../core/webhooks/delivery.js';
import { deliveryEndpointIds, hasEarlierPendingDelivery } from '../../core/webhooks/event-store.js';
import type { CartEventInput } from '../../core/webhooks/events.js';
import { createCartEventActivities, recordCartEventIn, scheduledDelivery, type RecordedEvent } from '../shared/cart-events.js';

/** One step of a session: its new status, the webhook event it makes (if any), and whether the customer's cards are done with. */
export interface SessionStep {
  status: CartStatusChange;
  event?: CartEventInput;
  discardCards?: boolean;
}

/**
 * What the session writes as it goes (the workflow runs these as local activities): the order ledger's
 * status, the cart's webhook events, and the cards it no longer needs. Idempotent, so retries are harmless.
 */
export function createLedgerActivities(deps: { db: Db; requestDelivery: RequestDelivery; attemptDelivery: AttemptDelivery }) {
  const { db, requestDelivery, attemptDelivery } = deps;

  /**
   * The step's event is tried from here, once per endpoint that wants it, when nothing of the cart waits
   * before it for that endpoint: one attempt, bounded by SESSION_ATTEMPT_TIMEOUT_MS. Only a delivery
   * that attempt did not settle (a failure to retry, or an earlier event still queued) goes to the
   * cart's delivery workflow, so a session whose merchant answers never starts one.
   */
  async function deliverStepEvent(event: CartEventInput, recorded: RecordedEvent): Promise<void> {
    for (const endpointId of await deliveryEndpointIds(db, recorded.eventId)) {
      const request = scheduledDelivery(event, recorded, endpointId);
      if (recorded.sequence > 1 && (await hasEarlierPendingDelivery(db, event.cartId, recorded.sequence, endpointId))) {
        await requestDelivery(event.cartId, request);
        continue;
      }
      try {
        await attemptDelivery(request, { attempt: 1, timeoutMs: SESSION_ATTEMPT_TIMEOUT_MS });
      } catch (error) {
        if (!(error instanceof ApplicationFailure && error.type === DELIVERY_FAILURE.attemptFailed)) throw error;
        const delayMs = typeof error.nextRetryDelay === 'number' ? error.nextRetryDelay : 0;
        await requestDelivery(event.cartId, { ...request, attemptsMade: 1, retryAt: new Date(Date.now() + delayMs).toISOString() });
      }
    }
  }

  return {
    recordCartStatus: (input: CartStatusChange): Promise<void> => recordCartStatus(db, input),

    ...createCartEventActivities(deps),

    /** Removes every card the cart left in the vault: after the charge, or when it never paid. */
    discardCards: (input: { cartId: string }): Promise<void> => discardCartCards(db, input.cartId),

    /**
     * A step of the session in one transaction: the status, the step's event and the discarded cards
     * commit together, then the event goes out (deliverStepEvent). One local activity where a session
     * of 1.0 runs up to three.
     */
    async recordSessionStep(step: SessionStep): Promise<void> {
      const recorded = await db.begin(async (tx) => {
        await recordCartStatus(tx, step.status);
        if (step.discardCards) await discardCartCards(tx, step.status.cartId);
        return step.event ? recordCartEventIn(tx, step.event) : undefined;
      });
      if (step.event && recorded) await deliverStepEvent(step.event, recorded);
    },
  };
}
