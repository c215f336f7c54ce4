import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, TimeoutFailure } from '@temporalio/workflow';
import type { CartSessionActivities } from '../../activities/cart-session/index.js';
import { ACTION_REFUSED, OTP_SEND_FAILED } from '../../core/checkout/session.js';
import { parseContact } from '../../core/checkout/contact.js';
import { otpHashDigest } from '../../core/checkout/otp/digest.js';
import { WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS, WAITED_ACTIVITY_RETRY_INTERVAL_MS } from '../../core/temporal/worker-loss.js';
import type { CartSessionState } from './messages.js';
import type { SessionRelease } from './release.js';
import { refuse, type Challenge, type Contact, type SessionState } from './session-state.js';

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
 *
 * In a 1.2 session (`rebindsBrowsers`), a verified session also answers another browser holding the cartId:
 * a fresh code to the contact already verified, counted with the resends, whose wrong tries are
 * refused and drop the code after the last one, but never decide the session, since whoever holds the
 * cartId could otherwise end a customer's checkout by guessing (docs/security.md, "One browser").
 */
export function oneTimeCodes(session: SessionState, release: Pick<SessionRelease, 'sendsCodesLocally' | 'rebindsBrowsers'>) {
  const { cartId, otpPolicy } = session;
  const sendOtp = release.sendsCodesLocally ? sendOtpLocally : sendOtpAsTask;
  const rebinding = () => release.rebindsBrowsers && session.verified;

  const requireCodeStep = () => {
    session.requireOpen();
    if (session.verified) refuse(ACTION_REFUSED.alreadyVerified, 'You are already verified.');
    if (session.sending) refuse(ACTION_REFUSED.sendInProgress, 'A code is being sent.');
  };
  const requireRebindStep = () => {
    session.requireOpen();
    if (session.sending) refuse(ACTION_REFUSED.sendInProgress, 'A code is being sent.');
  };
  const requireResendAllowed = () => {
    // Another browser's codes all come after the customer's first, so all count as resends; but its first
    // does not wait on the customer's own code: only its own codes are spaced.
    const challenge = rebinding() ? session.rebinding?.challenge : session.challenge;
    if ((challenge || rebinding()) && session.resends >= otpPolicy.maxResends)
      refuse(ACTION_REFUSED.resendLimit, 'No more codes can be sent for this checkout.');
    if (!challenge) return;
    const availableAt = challenge.sentAt + otpPolicy.resendIntervalMs;
    if (Date.now() < availableAt) {
      refuse(ACTION_REFUSED.resendTooSoon, `Wait ${Math.ceil((availableAt - Date.now()) / 1000)} s before asking for a new code.`);
    }
  };
  const requireLiveCode = (challenge: Challenge | undefined, codeHash: string): void => {
    if (!challenge) refuse(ACTION_REFUSED.codeNotSent, 'Ask for a code first.');
    if (typeof codeHash !== 'string' || !/^[0-9a-f]{64}$/.test(codeHash)) refuse(ACTION_REFUSED.invalidCodeHash, 'Not a code hash.');
    if (Date.now() >= challenge.expiresAt) refuse(ACTION_REFUSED.codeExpired, 'This code has expired. Ask for a new one.');
  };

  /** Sends a code to `to` and hands its challenge to `keep`; any code sent after the first counts as a resend. */
  const deliver = async (to: Contact, keep: (challenge: Challenge) => void): Promise<CartSessionState> => {
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
      const sentAt = Date.now();
      keep({ acceptedDigests: sent.acceptedDigests, sentAt, expiresAt: sentAt + otpPolicy.codeLifetimeMs });
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

  const sendCode = (to: Contact) =>
    deliver(to, (challenge) => {
      session.contact = to;
      session.challenge = challenge;
    });
  const sendRebindCode = () =>
    deliver(session.contact!, (challenge) => {
      session.rebinding = { challenge, wrongCodes: 0 };
    });

  const verifyFirst = (codeHash: string): CartSessionState | Promise<CartSessionState> => {
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
  };

  const verifyRebind = (codeHash: string): CartSessionState => {
    const pending = session.rebinding!;
    if (pending.challenge.acceptedDigests.includes(otpHashDigest(codeHash))) {
      session.rebinding = undefined;
      session.tell();
      return session.snapshot();
    }
    pending.wrongCodes++;
    const locked = pending.wrongCodes >= otpPolicy.maxWrongCodes;
    if (locked) session.rebinding = undefined;
    session.tell();
    if (locked) refuse(ACTION_REFUSED.rebindLocked, 'Too many wrong codes. Ask for a new one.');
    return refuse(ACTION_REFUSED.codeWrong, 'That code is not right.');
  };

  return {
    send: ({ contact, contactKey, cardKey, locale, remind }: { contact: string; contactKey?: string; cardKey?: string; locale?: string; remind?: boolean }) =>
      sendCode({
        ...parseContact(contact)!,
        ...(typeof contactKey === 'string' ? { key: contactKey } : {}),
        ...(typeof cardKey === 'string' ? { cardKey } : {}),
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

    resend: () => (rebinding() ? sendRebindCode() : sendCode(session.contact!)),
    validateResend: () => {
      if (rebinding()) requireRebindStep();
      else {
        requireCodeStep();
        if (!session.challenge) refuse(ACTION_REFUSED.codeNotSent, 'No code has been sent yet.');
      }
      requireResendAllowed();
    },

    verify: ({ codeHash }: { codeHash: string }) => (rebinding() ? verifyRebind(codeHash) : verifyFirst(codeHash)),
    validateVerify: ({ codeHash }: { codeHash: string }) => {
      if (rebinding()) {
        requireRebindStep();
        requireLiveCode(session.rebinding?.challenge, codeHash);
        return;
      }
      requireCodeStep();
      requireLiveCode(session.challenge, codeHash);
    },
  };
}
