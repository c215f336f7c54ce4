import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, TimeoutFailure } from '@temporalio/workflow';
import type { CartSessionActivities } from '../../activities/cart-session/index.js';
import { ACTION_REFUSED, OTP_SEND_FAILED } from '../../core/checkout/session.js';
import { parseContact } from '../../core/checkout/contact.js';
import { otpHashDigest } from '../../core/checkout/otp/digest.js';
import { WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS, WAITED_ACTIVITY_RETRY_INTERVAL_MS } from '../../core/temporal/worker-loss.js';
import type { CartSessionState } from './messages.js';
import { refuse, type Contact, type SessionState } from './session-state.js';

/**
 * The customer is waiting on the page: a code that cannot be sent fails the action, not the session.
 * A 1.1 session sends it from a local activity, in the workflow task that took the update: one
 * workflow task and one activity task fewer per send. One whose worker died is sent again with that
 * task, on another worker, once the task times out (WORKFLOW_TASK_TIMEOUT_MS), while the page still
 * waits (docs/decisions/worker-loss.md).
 */
const { sendOtp: sendOtpLocally } = proxyLocalActivities<CartSessionActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: WAITED_ACTIVITY_RETRY_INTERVAL_MS, maximumAttempts: 3 },
});

/**
 * A 1.0 session sends it from an activity task that heartbeats (activities/shared/heartbeat.ts), so
 * one whose worker died is retried on another after WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS, not after
 * its 15 s start-to-close timeout.
 */
const { sendOtp: sendOtpAsTask } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '15 seconds',
  heartbeatTimeout: WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: WAITED_ACTIVITY_RETRY_INTERVAL_MS, maximumAttempts: 3 },
});

/**
 * The one-time code: sent to the contact the customer gives, sent again on request, and verified.
 * Sending to a new contact once a code went out counts as a resend, with the same limits; the last
 * wrong code allowed locks the customer out, which decides the session.
 */
export function oneTimeCodes(session: SessionState, options: { sendsLocally: boolean }) {
  const { cartId, otpPolicy } = session;
  const sendOtp = options.sendsLocally ? sendOtpLocally : sendOtpAsTask;

  const requireCodeStep = () => {
    session.requireOpen();
    if (session.verified) refuse(ACTION_REFUSED.alreadyVerified, 'You are already verified.');
    if (session.sending) refuse(ACTION_REFUSED.sendInProgress, 'A code is being sent.');
  };
  const requireResendAllowed = () => {
    const { challenge } = session;
    if (!challenge) return;
    if (session.resends >= otpPolicy.maxResends) refuse(ACTION_REFUSED.resendLimit, 'No more codes can be sent for this checkout.');
    const availableAt = challenge.sentAt + otpPolicy.resendIntervalMs;
    if (Date.now() < availableAt) {
      refuse(ACTION_REFUSED.resendTooSoon, `Wait ${Math.ceil((availableAt - Date.now()) / 1000)} s before asking for a new code.`);
    }
  };

  const sendCode = async (to: Contact): Promise<CartSessionState> => {
    session.sending = true;
    session.tell();
    try {
      const sent = await sendOtp({
        cartId,
        contact: to.address,
        codeLifetimeMs: otpPolicy.codeLifetimeMs,
        ...(to.locale ? { locale: to.locale } : {}),
      });
      if (session.challenge) session.resends++;
      session.contact = to;
      const sentAt = Date.now();
      session.challenge = { acceptedDigests: sent.acceptedDigests, sentAt, expiresAt: sentAt + otpPolicy.codeLifetimeMs };
    } catch (error) {
      // An activity task's failure comes wrapped in an ActivityFailure; a local activity's as it is.
      if (error instanceof ActivityFailure || error instanceof ApplicationFailure || error instanceof TimeoutFailure)
        throw ApplicationFailure.create({ type: OTP_SEND_FAILED, message: 'The code could not be sent. Try again.', nonRetryable: true });
      throw error;
    } finally {
      session.sending = false;
      session.sendAttempts++;
      session.tell();
    }
    return session.snapshot();
  };

  return {
    send: ({ contact, contactKey, locale, remind }: { contact: string; contactKey?: string; locale?: string; remind?: boolean }) =>
      sendCode({
        ...parseContact(contact)!,
        ...(typeof contactKey === 'string' ? { key: contactKey } : {}),
        ...(typeof locale === 'string' ? { locale } : {}),
        ...(remind === true ? { remind } : {}),
      }),
    validateSend: ({ contact }: { contact: string }) => {
      requireCodeStep();
      if (typeof contact !== 'string' || !parseContact(contact)) {
        refuse(ACTION_REFUSED.invalidContact, 'Enter an email address, or a phone number with its country code (e.g. +33 6 12 34 56 78).');
      }
      requireResendAllowed();
    },

    resend: () => sendCode(session.contact!),
    validateResend: () => {
      requireCodeStep();
      if (!session.challenge) refuse(ACTION_REFUSED.codeNotSent, 'No code has been sent yet.');
      requireResendAllowed();
    },

    verify: ({ codeHash }: { codeHash: string }): CartSessionState | Promise<CartSessionState> => {
      if (session.challenge!.acceptedDigests.includes(otpHashDigest(codeHash))) {
        session.verified = true;
        session.tell();
        return session.snapshot();
      }
      session.wrongCodes++;
      session.tell();
      if (session.wrongCodes < otpPolicy.maxWrongCodes) return session.snapshot();
      session.decision = { kind: 'locked_out' };
      return session.settledSnapshot();
    },
    validateVerify: ({ codeHash }: { codeHash: string }) => {
      requireCodeStep();
      const { challenge } = session;
      if (!challenge) refuse(ACTION_REFUSED.codeNotSent, 'Ask for a code first.');
      if (typeof codeHash !== 'string' || !/^[0-9a-f]{64}$/.test(codeHash)) refuse(ACTION_REFUSED.invalidCodeHash, 'Not a code hash.');
      if (Date.now() >= challenge.expiresAt) refuse(ACTION_REFUSED.codeExpired, 'This code has expired. Ask for a new one.');
    },
  };
}
