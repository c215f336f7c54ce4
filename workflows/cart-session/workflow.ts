import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import { ACTION_REFUSED, OTP_LOCKED, TERMINAL_STATUSES, type CancelledBy, type CartStatus } from '../../core/checkout/session.js';
import { authorizationHold } from './authorization-hold.js';
import { oneTimeCodes } from './codes.js';
import {
  advanceClockUpdate,
  cancelUpdate,
  captureUpdate,
  expireUpdate,
  payUpdate,
  resendCodeUpdate,
  sendCodeUpdate,
  stateQuery,
  threeDSecureReturnUpdate,
  verifyCodeUpdate,
  voidUpdate,
  type CartSessionInput,
} from './messages.js';
import { duration } from './operator-details.js';
import { cardPayment } from './payment.js';
import { sessionRecorder } from './recording.js';
import { recoveryReminder } from './reminder.js';
import { sessionRelease } from './release.js';
import { refuse, SessionState } from './session-state.js';
import { testClock } from './test-clock.js';

/**
 * One checkout attempt for one cart, from creation until it is paid, failed, cancelled or abandoned.
 * The customer proves who they are with a one-time code, then pays; the merchant may end the session
 * before that, and for a manual-capture cart captures or voids the authorization after it.
 */
export async function cartSession(input: CartSessionInput): Promise<{ status: CartStatus }> {
  // A session started before 1.1 (no marker in its history) runs as 1.0 did: see CHANGELOG.md, [1.1.0].
  const release = sessionRelease();
  const session = new SessionState(input);
  const recorder = sessionRecorder(session, release);
  const codes = oneTimeCodes(session, release);
  const payment = cardPayment(session, recorder, release);
  const clock = testClock(session);
  const hold = authorizationHold(session, recorder, clock);

  setHandler(stateQuery, () => session.snapshot());
  session.tell();
  setHandler(sendCodeUpdate, codes.send, { validator: codes.validateSend });
  setHandler(resendCodeUpdate, codes.resend, { validator: codes.validateResend });
  setHandler(verifyCodeUpdate, codes.verify, { validator: codes.validateVerify });
  setHandler(payUpdate, payment.pay, { validator: payment.validatePay });
  setHandler(threeDSecureReturnUpdate, payment.challenge.returned, { validator: payment.challenge.validateReturn });
  setHandler(cancelUpdate, () => decide({ kind: 'cancel', by: 'customer' }), { validator: () => session.requireOpen() });
  if (release.merchantExpire) setHandler(expireUpdate, () => decide({ kind: 'cancel', by: 'merchant' }), { validator: validateExpire });
  setHandler(captureUpdate, hold.capture, { validator: hold.validateCapture });
  setHandler(voidUpdate, hold.void, { validator: hold.validateVoid });
  if (release.advancesClock) setHandler(advanceClockUpdate, clock.advance, { validator: clock.validateAdvance });

  // The test clock's `expired` ends the wait as the timer would: no decision, so abandoned.
  const decided = await condition(() => session.decision !== undefined || clock.fired('expired'), input.lifetimeMs, {
    summary: `${duration(input.lifetimeMs)} expiry of the session`,
  });
  const decision = decided ? session.decision : undefined;
  if (!decision) await recorder.moveTo('abandoned');
  else if (decision.kind === 'pay') await payment.take(decision.card);
  else if (decision.kind === 'cancel') await recorder.moveTo('cancelled', { cancelledBy: decision.by });
  else await recorder.moveTo('failed', { failureCode: OTP_LOCKED });
  await recorder.discardLeftCards();
  session.settled = true;

  if (session.status === 'authorized') await hold.hold();
  // A 1.2 session of a cart with recovery may remind its customer (./reminder.ts); earlier ones never did.
  if (release.remindsAfterAbandonment && session.status === 'abandoned') await recoveryReminder(session, release, clock).afterAbandonment();
  await condition(allHandlersFinished);
  return { status: session.status };

  /** The customer's cancel and the merchant's expire end the session as soon as its outcome is recorded. */
  function decide(decision: { kind: 'cancel'; by: CancelledBy }) {
    session.decision = decision;
    return session.settledSnapshot();
  }

  /** A payment under way decides the session: ending it now could leave a charge without its order. */
  function validateExpire() {
    if (session.decision?.kind === 'pay' && !TERMINAL_STATUSES.has(session.status)) refuse(ACTION_REFUSED.paymentInProgress, 'A payment is in progress.');
    session.requireOpen();
  }
}
