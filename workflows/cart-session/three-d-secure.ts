import { ActivityFailure, condition } from '@temporalio/workflow';
import type { PaymentOutcome } from '../../activities/cart-session/payments.js';
import { ACTION_REFUSED, AUTHENTICATION_TIMEOUT, TERMINAL_STATUSES, THREE_DS_CHALLENGE_DEFAULT_MS } from '../../core/checkout/session.js';
import type { CartSessionState } from './messages.js';
import { duration } from './operator-details.js';
import { refuse, type SessionState } from './session-state.js';
import { confirmAuthentication, voidPayment } from './payment-activities.js';

/** An outcome the customer's payment can end with: a challenge is resolved before it counts. */
export type FinalOutcome = Exclude<PaymentOutcome, { outcome: 'requires_authentication' }>;

/**
 * The customer at their bank's 3-D Secure challenge (step `authenticating`, the page redirects them),
 * and their return (threeDSecureReturnUpdate), which has the processor asked how it ended.
 */
export function threeDSecureChallenge(session: SessionState) {
  const { cartId } = session;
  return {
    /**
     * No return within THREE_DS_CHALLENGE_SECONDS, counted from now and not cut short by the session's
     * expiry (whose timer ended with the customer's decision to pay), voids the payment by its
     * reference and fails the session with `authentication_timeout`. A customer back without an answer
     * failed the challenge.
     */
    async authenticate({ chargeId, redirectUrl }: { chargeId: string; redirectUrl: string }): Promise<FinalOutcome> {
      const boundMs = session.input.threeDSecureChallengeMs ?? THREE_DS_CHALLENGE_DEFAULT_MS;
      session.authentication = { redirectUrl, until: Date.now() + boundMs };
      session.tell();
      const returned = await condition(() => session.returnedFromBank, boundMs, { summary: `${duration(boundMs)} bound of the 3-D Secure challenge` });
      session.authentication = undefined;
      session.tell();
      if (!returned) {
        await voidPayment({ cartId, chargeId });
        return { outcome: 'declined', failureCode: AUTHENTICATION_TIMEOUT, threeDSecure: 'failed' };
      }
      let confirmed: PaymentOutcome | undefined;
      try {
        confirmed = await confirmAuthentication({ cartId, chargeId });
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
      }
      if (confirmed && confirmed.outcome !== 'requires_authentication') return confirmed;
      await voidPayment({ cartId, chargeId });
      return confirmed
        ? { outcome: 'declined', failureCode: 'authentication_failed', threeDSecure: 'failed' }
        : { outcome: 'declined', failureCode: 'processor_error' };
    },

    returned: (): Promise<CartSessionState> => {
      session.returnedFromBank = true;
      session.tell();
      return session.settledSnapshot();
    },
    validateReturn: () => {
      if (!session.authentication || session.returnedFromBank || TERMINAL_STATUSES.has(session.status))
        refuse(ACTION_REFUSED.notAuthenticating, 'No 3-D Secure challenge is waiting for this checkout.');
    },
  };
}
