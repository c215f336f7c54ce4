import { ActivityFailure, condition, sleep } from '@temporalio/workflow';
import type { PaymentLookup, PaymentOutcome } from '../../activities/cart-session/payments.js';
import type { CartStatusChange } from '../../core/checkout/cart-ledger.js';
import { ACTION_REFUSED } from '../../core/checkout/session.js';
import { SAVED_CARD_ID_PATTERN } from '../../core/checkout/saved-card-id.js';
import type { CartSessionState } from './messages.js';
import {
  chargePayment,
  chargePaymentHeartbeating,
  chargePaymentOnce,
  chargePaymentOnceHeartbeating,
  lookupPayment,
  voidPayment,
} from './payment-activities.js';
import type { sessionRecorder } from './recording.js';
import { refuse, type Card, type SessionState } from './session-state.js';
import { threeDSecureChallenge } from './three-d-secure.js';
import type { SessionRelease } from './release.js';
import { paymentRecord } from '../../core/checkout/payment-record.js';

const LOOKUP_BACKOFF = { initialMs: 1_000, maximumMs: 60_000 };

/** AUTHORIZATION_HOLD_DAYS' default, for a manual session started without it. */
const DEFAULT_AUTHORIZATION_HOLD_MS = 7 * 24 * 3600_000;

/** The charge's answer, or undefined when the processor gave none (outcome unknown). */
async function answerOf(charge: Promise<PaymentOutcome>): Promise<PaymentOutcome | undefined> {
  try {
    return await charge;
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    return undefined;
  }
}

/**
 * The customer's payment, from Pay to its outcome in the ledger. A 1.1 session may send the customer
 * through a 3-D Secure challenge and, for a cart with `captureMethod: "manual"`, only authorizes; a
 * 1.0 session charges without a return URL (a challenge is then a decline) and captures at once.
 * A 1.2 session also pays with a saved card of the contact it verified, or saves the card on the
 * customer's consent (docs/saved-cards.md): the activity gets the verified contact's key, never the contact.
 */
export function cardPayment(
  session: SessionState,
  recorder: ReturnType<typeof sessionRecorder>,
  release: Pick<SessionRelease, 'threeDSecure' | 'manualCapture' | 'savedCards' | 'chargeHeartbeats'>,
) {
  const { cartId, input } = session;
  const manual = release.manualCapture && input.captureMethod === 'manual';
  const challenge = threeDSecureChallenge(session);
  const [charge, chargeOnce] = release.chargeHeartbeats ? [chargePaymentHeartbeating, chargePaymentOnceHeartbeating] : [chargePayment, chargePaymentOnce];

  /**
   * An unknown outcome is never a decline. When the charge's retries go unanswered the session stays
   * `processing` and asks the processor what happened (lookup by the cartId, the idempotency key),
   * with backoff, for up to paymentResolutionMs; while nothing was found the charge may be retried
   * under the same key. Nothing found by then: `processor_error`, after a void by key so an approval
   * that lands later is voided and the merchant's story (one final event) stays true.
   */
  const resolvePayment = async (card: Card, processing?: CartStatusChange): Promise<PaymentOutcome> => {
    const request = {
      cartId,
      ...(card.cardToken ? { cardToken: card.cardToken } : {}),
      ...(release.savedCards ? savedCardRequest(card) : {}),
      amount: input.amount,
      currency: input.currency,
      ...(manual ? { captureMethod: 'manual' as const } : {}),
      ...(release.threeDSecure ? { threeDSecure: true } : {}),
    };
    // The first charge writes the processing step when the session left it to it (a 1.2 session).
    const answered = await answerOf(charge({ ...request, ...(processing ? { processing } : {}) }));
    if (answered) return answered;

    const giveUpAt = Date.now() + input.paymentResolutionMs;
    let backoffMs = LOOKUP_BACKOFF.initialMs;
    let mayRecharge = true;
    session.resolvingUntil = giveUpAt;
    session.tell();
    while (Date.now() < giveUpAt) {
      await sleep(Math.min(backoffMs, giveUpAt - Date.now()));
      backoffMs = Math.min(backoffMs * 2, LOOKUP_BACKOFF.maximumMs);
      let found: PaymentLookup | undefined;
      try {
        found = await lookupPayment({ cartId });
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
      }
      if (found?.found) return found.outcome;
      if (found && mayRecharge && Date.now() < giveUpAt) {
        const retried = await answerOf(chargeOnce(request));
        // card_unavailable is our vault's answer, not the processor's: an earlier request may still land.
        if (retried && !(retried.outcome === 'declined' && retried.failureCode === 'card_unavailable')) return retried;
        if (retried) mayRecharge = false;
      }
    }
    await voidPayment({ cartId });
    return { outcome: 'declined', failureCode: 'processor_error' };
  };

  /**
   * What a 1.2 session adds to the charge: the saved card or the consent, with the key of the exact
   * contact it verified (never the code limits' fold: docs/saved-cards.md). A session whose page sent
   * no such key is offered no saved card, so it has none to charge or save.
   */
  const savedCardRequest = (card: Card) => {
    const contactKey = session.contact?.cardKey;
    if (!contactKey || !(card.savedCardId || card.save)) return {};
    return { contactKey, ...(card.savedCardId ? { savedCardId: card.savedCardId } : { save: true }) };
  };

  return {
    challenge,

    /**
     * Pay answers with the outcome, or as soon as the customer must go to their bank's challenge, so
     * the page sends them there at once instead of waiting out its bound on the outcome.
     */
    pay: (card: Card): Promise<CartSessionState> => {
      const chosen = release.savedCards && card.savedCardId ? { savedCardId: card.savedCardId } : { cardToken: card.cardToken };
      const save = release.savedCards && card.save === true && !card.savedCardId ? { save: true } : {};
      session.decision = { kind: 'pay', card: { ...chosen, ...save, brand: card.brand, last4: card.last4 } };
      session.paymentSubmittedAt = Date.now();
      return condition(() => session.settled || session.authentication !== undefined).then(() => session.snapshot());
    },
    // `Card` is payUpdate's declared argument type, but update arguments come from outside: the shape is still checked.
    validatePay: (card: Card) => {
      if (session.decision?.kind === 'pay' || session.status !== 'pending')
        refuse(ACTION_REFUSED.paymentSubmitted, 'A payment was already submitted for this checkout.');
      session.requireOpen();
      if (!session.verified) refuse(ACTION_REFUSED.notVerified, 'Verify your one-time code first.');
      // A saved card only in a 1.2 session, never with a token beside it; consent only with a token.
      const saved = release.savedCards && card?.savedCardId !== undefined;
      const reference = saved
        ? typeof card.savedCardId === 'string' && SAVED_CARD_ID_PATTERN.test(card.savedCardId) && card.cardToken === undefined && card.save === undefined
        : typeof card?.cardToken === 'string' &&
          /^card_[A-Za-z0-9_-]{16,64}$/.test(card.cardToken) &&
          (card.save === undefined || typeof card.save === 'boolean');
      const wellFormed =
        reference && typeof card.brand === 'string' && /^[a-z]{1,20}$/.test(card.brand) && typeof card.last4 === 'string' && /^\d{4}$/.test(card.last4);
      if (!wellFormed) refuse(ACTION_REFUSED.invalidCard, 'The card reference is not valid.');
    },

    /** Charges the card and records the outcome: `paid`, `authorized` (a manual capture's hold) or `failed`. */
    async take(card: Card): Promise<void> {
      session.payment = paymentRecord(card, { manual, savedCards: release.savedCards });
      const answered = await recorder.processing((processing) => resolvePayment(card, processing));
      const result = answered.outcome === 'requires_authentication' ? await challenge.authenticate(answered) : answered;
      const secured = result.threeDSecure ? { threeDSecure: { result: result.threeDSecure } } : {};
      if (result.outcome === 'approved') {
        session.payment = { ...session.payment, ...secured };
        if (!manual) return recorder.moveTo('paid');
        session.holdExpiresAt = Date.now() + (input.authorizationHoldMs ?? DEFAULT_AUTHORIZATION_HOLD_MS);
        return recorder.moveTo('authorized', {}, 'order_created');
      }
      session.payment = { ...session.payment, failureCode: result.failureCode, ...secured };
      return recorder.moveTo('failed', { failureCode: result.failureCode });
    },
  };
}
