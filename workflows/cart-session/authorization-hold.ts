import { condition } from '@temporalio/workflow';
import { ACTION_REFUSED, AUTHORIZATION_EXPIRED, CAPTURE_DECLINED } from '../../core/checkout/session.js';
import type { CartSessionState, HoldDecision } from './messages.js';
import { duration } from './operator-details.js';
import { capturePayment, voidPayment } from './payment-activities.js';
import type { sessionRecorder } from './recording.js';
import { refuse, type SessionState } from './session-state.js';
import type { testClock } from './test-clock.js';

/**
 * A manual-capture session keeps the authorization it made (docs/decisions/manual-capture.md): the
 * merchant's capture or void, or the hold timer, whichever comes first, decides; the updates'
 * validators refuse whatever comes after. A refusal once decided says which way (HoldRefusalDetails):
 * validators are not replayed, so this changes no command.
 */
export function authorizationHold(session: SessionState, recorder: ReturnType<typeof sessionRecorder>, clock: ReturnType<typeof testClock>) {
  const { cartId, input } = session;

  const requireHold = () => {
    const { status, holdDecision } = session;
    if (status !== 'authorized' || holdDecision)
      refuse(
        ACTION_REFUSED.notAuthorized,
        `This order is ${holdDecision ? 'being captured or voided' : status}: only an authorized order can be captured or voided.`,
        holdDecision ? { decided: holdDecision } : undefined,
      );
  };
  const decide = (decision: HoldDecision): Promise<CartSessionState> => {
    session.holdDecision = decision;
    session.tell();
    return session.holdSettledSnapshot();
  };

  return {
    capture: ({ amount }: { amount?: number }) => decide({ kind: 'capture', amount: amount ?? input.amount }),
    validateCapture: (request: { amount?: number }) => {
      requireHold();
      const amount = request?.amount;
      if (amount !== undefined && !(Number.isSafeInteger(amount) && amount >= 1 && amount <= input.amount)) {
        refuse(ACTION_REFUSED.invalidCaptureAmount, `The amount must be a whole number of minor units from 1 to ${input.amount}, the authorized amount.`);
      }
    },
    void: () => decide({ kind: 'void' }),
    validateVoid: requireHold,

    /**
     * Waits for the decision. Capture moves to `paid` (order_updated), void and expiry to `cancelled`
     * (order_cancelled), after the processor released the hold.
     */
    async hold(): Promise<void> {
      const holdMs = session.holdExpiresAt! - Date.now();
      session.tell();
      // The test clock's `authorization_expired` ends the hold as its timer would.
      await condition(() => session.holdDecision !== undefined || clock.fired('authorization_expired'), Math.max(holdMs, 1), {
        summary: `${duration(holdMs)} authorization hold`,
      });
      const decided: HoldDecision = (session.holdDecision ??= { kind: 'expire' });
      session.tell();
      if (decided.kind === 'capture') {
        const answer = await capturePayment({ cartId, amount: decided.amount });
        if (answer.outcome === 'captured') {
          session.capturedAmount = decided.amount;
          session.payment = { ...session.payment!, capturedAmount: decided.amount };
          await recorder.moveTo('paid', { capturedAmount: decided.amount }, 'order_updated');
        } else {
          session.payment = { ...session.payment!, failureCode: CAPTURE_DECLINED };
          await recorder.moveTo('failed', { failureCode: CAPTURE_DECLINED });
        }
      } else {
        await voidPayment({ cartId });
        await recorder.moveTo('cancelled', decided.kind === 'expire' ? { failureCode: AUTHORIZATION_EXPIRED } : { cancelledBy: 'merchant' });
      }
      session.holdSettled = true;
    },
  };
}
