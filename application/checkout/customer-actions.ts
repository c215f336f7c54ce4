import { WorkflowUpdateFailedError, WorkflowUpdateStage, type WorkflowUpdateHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import type { Config } from '../../core/config.js';
import { withDeadline, type Temporal } from '../../core/temporal/connection.js';
import { UPDATE_HANDOVER_MS } from '../../core/temporal/worker-loss.js';
import {
  cancelUpdate,
  payUpdate,
  resendCodeUpdate,
  sendCodeUpdate,
  stateQuery,
  threeDSecureReturnUpdate,
  verifyCodeUpdate,
  type CartSessionState,
} from '../../workflows/cart-session/messages.js';
import { cartSessionHandle, type CartSessionHandle } from '../../workflows/cart-session/client.js';

/** How the workflow took a customer action. Anything else (Temporal unreachable, deadline) is thrown. */
export type ActionResult =
  | { accepted: true; state: CartSessionState }
  | { accepted: false; reason: 'rejected'; code: string | undefined; message: string }
  | { accepted: false; reason: 'session-closed' };

/**
 * Covers an update whose handler runs an activity (sending a code, 10 s), after a worker that died
 * holding the session was replaced (core/temporal/worker-loss.ts); longer means a 503. A deadline that strikes
 * leaves the update where it was: sent again, under the same id, it is the same update.
 */
export const UPDATE_DEADLINE_MS = UPDATE_HANDOVER_MS + 10_000;

/** How long the page waits for the state of a payment that outlasted PAY_OUTCOME_WAIT_MS before showing "processing" itself. */
const PAID_STATE_DEADLINE_MS = 3_000;

const GENERIC_REJECTION = 'We could not do that right now. Please try again.';

/**
 * The customer's actions, as updates of the cart's workflow. Each update id is derived from what the
 * customer sees, so a double click or a re-posted form is the same update and acts once: one payment
 * per cart (`pay-<cartId>`), one code check per code typed after a given resend.
 */
/** `stateQueried`: told of each state query the actions make (the page counts them: checkout_page_state_queries_total). */
export function customerActions(temporal: Temporal, config: Pick<Config, 'payOutcomeWaitMs'>, hooks: { stateQueried?: () => void } = {}) {
  async function run(cartId: string, update: (handle: CartSessionHandle) => Promise<CartSessionState>): Promise<ActionResult> {
    const handle = cartSessionHandle(temporal.client, cartId);
    try {
      return { accepted: true, state: await withDeadline(temporal, UPDATE_DEADLINE_MS, () => update(handle)) };
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return { accepted: false, reason: 'rejected', code: refusalCode(err), message: customerMessage(err) };
      if (err instanceof WorkflowNotFoundError) return { accepted: false, reason: 'session-closed' };
      throw err;
    }
  }

  /**
   * The pay update answers once the outcome is recorded (the workflow's settledState), so waiting on it
   * for PAY_OUTCOME_WAIT_MS lets the page send the customer straight back to the merchant. A payment
   * that outlasts the wait (a charge the processor has not answered, which the workflow goes on
   * resolving for minutes) is no reason for an error page: the page shows "processing" and polls.
   * Nor is a state query that does not answer (the worker holding the session just died, and
   * Temporal has not yet moved it): the payment is processing.
   */
  async function paymentOutcome(h: CartSessionHandle, update: WorkflowUpdateHandle<CartSessionState>, before: CartSessionState): Promise<CartSessionState> {
    try {
      return await withDeadline(temporal, config.payOutcomeWaitMs, () => update.result());
    } catch (err) {
      // A Pay its validator refused answers that refusal (its card leaves the vault), not the state.
      if (err instanceof WorkflowUpdateFailedError) throw err;
      const submitted: CartSessionState = { ...before, step: 'processing', paymentSubmittedAt: before.paymentSubmittedAt ?? new Date().toISOString() };
      hooks.stateQueried?.();
      return withDeadline(temporal, PAID_STATE_DEADLINE_MS, () => h.query(stateQuery)).catch(() => submitted);
    }
  }

  return {
    /**
     * `contactKey`: the destination's keyed hash (core/checkout/otp/destination.ts), kept by the session for resends' limit;
     * `cardKey`: the exact contact's (core/checkout/saved-card-contact.ts), its saved cards' key once verified;
     * `locale`: the page's language, for the code message (and the reminder); `remind`: the customer ticked "Remind me if I don't finish".
     */
    sendCode: (
      cartId: string,
      contact: string,
      state: CartSessionState,
      options: { contactKey?: string; cardKey?: string; locale?: string; remind?: boolean } = {},
    ) =>
      run(cartId, (h) =>
        h.executeUpdate(sendCodeUpdate, {
          args: [{ contact, contactKey: options.contactKey, cardKey: options.cardKey, locale: options.locale, ...(options.remind ? { remind: true } : {}) }],
          updateId: `send-code-${cartId}-${state.sendAttempts ?? 0}`,
        }),
      ),
    resendCode: (cartId: string, state: CartSessionState) =>
      run(cartId, (h) => h.executeUpdate(resendCodeUpdate, { updateId: `resend-code-${cartId}-${state.sendAttempts ?? 0}` })),
    verifyCode: (cartId: string, codeHash: string, state: CartSessionState) =>
      run(cartId, (h) =>
        h.executeUpdate(verifyCodeUpdate, {
          args: [{ codeHash }],
          // Per code sent: the first verification's, or another browser's (rebind) once verified.
          updateId: `verify-code-${cartId}-${state.otp?.resendsLeft ?? state.rebind?.resendsLeft ?? 'x'}-${codeHash.slice(0, 16)}`,
        }),
      ),
    /** Submits the payment (one per cart, whatever the clicks) and waits a bounded time for its outcome. */
    pay: (cartId: string, card: { cardToken?: string; savedCardId?: string; save?: boolean; brand: string; last4: string }, before: CartSessionState) =>
      run(cartId, async (h) => {
        const update = await h.startUpdate(payUpdate, { args: [card], updateId: payUpdateId(cartId), waitForStage: WorkflowUpdateStage.ACCEPTED });
        return paymentOutcome(h, update, before);
      }),
    /** A Pay post that finds the payment already submitted (a second click, a re-posted form) waits on the same outcome. */
    paymentOutcome: (cartId: string, before: CartSessionState) =>
      run(cartId, (h) => paymentOutcome(h, h.getUpdateHandle<CartSessionState>(payUpdateId(cartId)), before)),
    cancel: (cartId: string) => run(cartId, (h) => h.executeUpdate(cancelUpdate, { updateId: `cancel-${cartId}` })),
    /** The customer is back from their bank: one update per cart, so a return posted twice is one completion. */
    threeDSecureReturn: (cartId: string) => run(cartId, (h) => h.executeUpdate(threeDSecureReturnUpdate, { updateId: `three-d-secure-return-${cartId}` })),
  };
}

export type CustomerActions = ReturnType<typeof customerActions>;

const payUpdateId = (cartId: string) => `pay-${cartId}`;

/** Why the workflow refused (an ACTION_REFUSED type, or OTP_SEND_FAILED): the page translates it (web/i18n `refusal.<code>`). */
function refusalCode(err: WorkflowUpdateFailedError): string | undefined {
  return err.cause instanceof ApplicationFailure ? (err.cause.type ?? undefined) : undefined;
}

/**
 * A validator or handler refuses with an ApplicationFailure whose message is written for the
 * customer; anything else failing inside the workflow is not, and gets a generic sentence.
 */
function customerMessage(err: WorkflowUpdateFailedError): string {
  return err.cause instanceof ApplicationFailure && err.cause.message ? err.cause.message : GENERIC_REJECTION;
}
