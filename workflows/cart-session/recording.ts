import { condition, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { CartSessionActivities } from '../../activities/cart-session/index.js';
import type { PaymentOutcome } from '../../activities/cart-session/payments.js';
import type { WebhookEventName } from '../../core/webhooks/events.js';
import type { CartStatusChange } from '../../core/checkout/cart-ledger.js';
import { customerOf } from '../../core/checkout/contact.js';
import { PROCESSING_EVENT_AFTER_MS, type CancelledBy, type CartStatus } from '../../core/checkout/session.js';
import { searchAttributes } from './messages.js';
import { duration } from './operator-details.js';
import type { SessionState } from './session-state.js';
import type { SessionRelease } from './release.js';

/**
 * Ledger and webhook bookkeeping must not be lost: retried until it succeeds. The writes run as local
 * activities, inside the workflow task that decided them, instead of a server round trip each (three
 * to five per outcome). They are short, idempotent PostgreSQL writes, so a worker crash that re-runs
 * one on replay is harmless.
 */
const { recordCartStatus, recordCartEvent, discardCards, recordSessionStep } = proxyLocalActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const EVENT_FOR_STATUS: Partial<Record<CartStatus, WebhookEventName>> = {
  processing: 'order_updated',
  paid: 'order_created',
  failed: 'order_updated',
  cancelled: 'order_cancelled',
  abandoned: 'order_abandoned',
};

export interface Outcome {
  failureCode?: string;
  cancelledBy?: CancelledBy;
  capturedAmount?: number;
}

/**
 * Each step of the session goes to the order ledger, with its webhook event, and to the operators'
 * search. A 1.1 (lean) session writes a step in one local activity, which also empties the vault once
 * the card is done with, and tells the merchant `processing` only when a payment is slow; a 1.0
 * session writes each part in its own local activity and announces every payment as processing. A 1.2
 * session (`processingInCharge`) has the charge activity write its `processing` step before charging:
 * one local activity, its marker and a worker activation fewer per payment.
 */
export function sessionRecorder(session: SessionState, release: Pick<SessionRelease, 'recordsLean' | 'processingInCharge'>) {
  const { cartId } = session;
  const lean = release.recordsLean;

  const eventOf = (event: WebhookEventName, outcome: Outcome = {}) => ({
    cartId,
    event,
    status: session.status,
    ...(session.payment ? { payment: session.payment } : {}),
    ...(outcome.failureCode ? { failureCode: outcome.failureCode } : {}),
    ...(outcome.cancelledBy ? { cancelledBy: outcome.cancelledBy } : {}),
  });

  /** The step as the ledger takes it: the payment's record as it is, and the verified customer. */
  const changeOf = (next: CartStatus, outcome: Outcome = {}): CartStatusChange => {
    const { payment } = session;
    const customer = session.verified && session.contact ? customerOf(session.contact.address) : undefined;
    return { cartId, status: next, ...(payment ? { payment } : {}), ...(customer ? { customer } : {}), ...outcome };
  };

  /** The session's own state moves; the ledger is told by whoever writes the step. */
  const enter = (next: CartStatus, outcome: Outcome = {}) => {
    session.status = next;
    session.failureCode = outcome.failureCode;
    session.tell();
  };

  /** `event` null: the step is recorded without one (a lean session's payment, until it is slow to settle). */
  const moveTo = async (next: CartStatus, outcome: Outcome = {}, event: WebhookEventName | null = EVENT_FOR_STATUS[next] ?? null): Promise<void> => {
    enter(next, outcome);
    // A lean session's payment shows as processing in search only once it is slow (announcedIfSlow).
    if (!(lean && next === 'processing')) upsertSearchAttributes([{ key: searchAttributes.cartStatus, value: next }]);
    const change = changeOf(next, outcome);
    if (lean) {
      // Every step after processing ends the customer's use of their card: the vault is emptied with it.
      await recordSessionStep({
        status: change,
        ...(event ? { event: eventOf(event, outcome) } : {}),
        ...(next !== 'processing' ? { discardCards: true } : {}),
      });
      return;
    }
    await recordCartStatus(change);
    if (event) await recordCartEvent(eventOf(event, outcome));
  };

  /**
   * The payment is under way. A lean session tells the merchant `processing` (order_updated) only when
   * the payment is slow to settle: no answer within PROCESSING_EVENT_AFTER_MS (an unanswered charge
   * being resolved), or a 3-D Secure challenge to wait on. A prompt outcome is announced by its final
   * event alone, as card processors do, which spares every such payment a delivery
   * (docs/decisions/session-cost.md).
   */
  const processing = async (charge: (processingStep?: CartStatusChange) => Promise<PaymentOutcome>): Promise<PaymentOutcome> => {
    if (!lean) {
      await moveTo('processing');
      return charge();
    }
    let step: CartStatusChange | undefined;
    if (release.processingInCharge) {
      enter('processing');
      step = changeOf('processing');
    } else await moveTo('processing', {}, null);
    let answer: PaymentOutcome | undefined;
    const answering = charge(step).then((result) => (answer = result));
    const prompt = await condition(() => answer !== undefined, PROCESSING_EVENT_AFTER_MS, {
      summary: `${duration(PROCESSING_EVENT_AFTER_MS)} wait for the outcome before processing goes to the merchant`,
    });
    if (!prompt || (await answering).outcome === 'requires_authentication') {
      upsertSearchAttributes([{ key: searchAttributes.cartStatus, value: session.status }]);
      await recordSessionStep({ status: { cartId, status: session.status }, event: eventOf('order_updated') });
    }
    return answering;
  };

  /** No card outlives its session, whether it was charged, declined or never used (a lean session's last step emptied the vault). */
  const discardLeftCards = async (): Promise<void> => {
    if (!lean) await discardCards({ cartId });
  };

  return { moveTo, processing, discardLeftCards };
}
