import { discardCartCards } from '../../core/checkout/card-vault.js';
import { recordCartStatus, type CartStatusChange } from '../../core/checkout/cart-ledger.js';
import type { Keyring } from '../../core/crypto.js';
import type { Db } from '../../core/db/client.js';
import { ApplicationFailure } from '@temporalio/activity';
import { DELIVERY_FAILURE, SESSION_ATTEMPT_TIMEOUT_MS, type AttemptDelivery, type RequestDelivery } from '../../core/webhooks/delivery.js';
import type { CartEventInput } from '../../core/webhooks/events.js';
import { createCartEventActivities, recordCartEventIn, sendCartEvent, type FirstAttempt } from '../shared/cart-events.js';

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
export function createLedgerActivities(deps: {
  db: Db;
  keyring: Keyring;
  checkoutBaseUrl: string;
  requestDelivery: RequestDelivery;
  attemptDelivery: AttemptDelivery;
}) {
  const { db, keyring, attemptDelivery } = deps;

  /**
   * The step's own attempt at its event: one per endpoint, made at every endpoint at once and all
   * ended by one `deadline`, so the step takes about SESSION_ATTEMPT_TIMEOUT_MS however many endpoints
   * hang, well inside its local activity's timeout (workflows/cart-session/recording.ts). A failure is
   * left to the delivery workflow as attempt 1, after the retry table's delay. The attempt is made
   * once per event, not per run of the step: a run that finds one recorded (the step ran again after
   * its worker died, or after a hand-over failed) only hands the event over, so it is neither sent
   * twice from here nor lost.
   */
  const attemptBy =
    (deadline: number): FirstAttempt =>
    async (request, delivery) => {
      if (delivery.attempts > 0)
        return { ...request, attemptsMade: delivery.attempts, ...(delivery.nextAttemptAt ? { retryAt: delivery.nextAttemptAt.toISOString() } : {}) };
      if (Date.now() >= deadline) return request;
      try {
        await attemptDelivery(request, { attempt: 1, deadline });
        return undefined;
      } catch (error) {
        if (!(error instanceof ApplicationFailure && error.type === DELIVERY_FAILURE.attemptFailed)) throw error;
        const delayMs = typeof error.nextRetryDelay === 'number' ? error.nextRetryDelay : 0;
        return { ...request, attemptsMade: 1, retryAt: new Date(Date.now() + delayMs).toISOString() };
      }
    };

  return {
    recordCartStatus: (input: CartStatusChange): Promise<void> => recordCartStatus(db, keyring, input),

    ...createCartEventActivities(deps),

    /** Removes every card the cart left in the vault: after the charge, or when it never paid. */
    discardCards: (input: { cartId: string }): Promise<void> => discardCartCards(db, input.cartId),

    /**
     * A step of the session in one transaction: the status, the step's event and the discarded cards
     * commit together, then the event goes out, tried first from here (attemptBy). One local activity
     * where a session of 1.0 runs up to three.
     */
    async recordSessionStep(step: SessionStep): Promise<void> {
      const recorded = await db.begin(async (tx) => {
        // Sent together, one round trip on the transaction's connection, and run in this order: the
        // event's body reads the order with the step's changes. A statement that fails aborts the
        // transaction, so the ones after it fail too and nothing more is sent.
        const [, , event] = await Promise.all([
          recordCartStatus(tx, keyring, step.status),
          step.discardCards ? discardCartCards(tx, step.status.cartId) : undefined,
          step.event ? recordCartEventIn(tx, deps, step.event) : undefined,
        ]);
        return event;
      });
      if (step.event && recorded) await sendCartEvent(deps, step.event, recorded, attemptBy(Date.now() + SESSION_ATTEMPT_TIMEOUT_MS));
    },
  };
}
