import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  TimeoutFailure,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { CartSessionActivities } from '../../activities/cart-session/index.js';
import type { PaymentLookup, PaymentOutcome } from '../../activities/cart-session/payments.js';
import type { PaymentSummary, WebhookEventName } from '../../core/webhooks/events.js';
import type { ThreeDSecureResult } from '../../core/checkout/payment-processor.js';
import {
  cancelUpdate,
  expireUpdate,
  captureUpdate,
  payUpdate,
  resendCodeUpdate,
  searchAttributes,
  sendCodeUpdate,
  LEAN_SESSION_PATCH,
  LOCAL_CODE_SEND_PATCH,
  SESSION_CONTROL_PATCH,
  stateQuery,
  threeDSecureReturnUpdate,
  verifyCodeUpdate,
  voidUpdate,
  type CartSessionInput,
  type CartSessionState,
  type HoldDecision,
  type HoldRefusalDetails,
} from './messages.js';
import {
  ACTION_REFUSED,
  AUTHORIZATION_EXPIRED,
  CAPTURE_DECLINED,
  AUTHENTICATION_TIMEOUT,
  OTP_LOCKED,
  THREE_DS_CHALLENGE_DEFAULT_MS,
  OTP_POLICY,
  OTP_SEND_FAILED,
  PROCESSING_EVENT_AFTER_MS,
  TERMINAL_STATUSES,
  type ActionRefusal,
  type CancelledBy,
  type CartStatus,
  type CheckoutStep,
} from '../../core/checkout/session.js';
import { parseContact } from '../../core/checkout/contact.js';
import { otpHashDigest } from '../../core/checkout/otp/digest.js';
import { WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS, WAITED_ACTIVITY_RETRY_INTERVAL_MS } from '../../core/temporal/worker-loss.js';
import { currentDetails, duration } from './operator-details.js';

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

/**
 * The customer is waiting on the page: a code that cannot be sent fails the action, not the session.
 * A session under LOCAL_CODE_SEND_PATCH sends it from a local activity, in the workflow task that took
 * the update: one workflow task and one activity task fewer per send. One whose worker died is sent
 * again with that task, on another worker, once the task times out (WORKFLOW_TASK_TIMEOUT_MS), while
 * the page still waits (docs/decisions/worker-loss.md).
 */
const { sendOtp: sendOtpLocally } = proxyLocalActivities<CartSessionActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: WAITED_ACTIVITY_RETRY_INTERVAL_MS, maximumAttempts: 3 },
});

/**
 * Sessions from before that patch: the send is an activity task, and heartbeats
 * (activities/shared/heartbeat.ts), so one whose worker died is retried on another after
 * WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS, not after its 15 s start-to-close timeout.
 */
const { sendOtp } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '15 seconds',
  heartbeatTimeout: WAITED_ACTIVITY_HEARTBEAT_TIMEOUT_MS,
  retry: { initialInterval: WAITED_ACTIVITY_RETRY_INTERVAL_MS, maximumAttempts: 3 },
});

/**
 * A processor outage is retried a bounded number of times (the cartId is the idempotency key, so a
 * retry never charges twice). Declines are results. After the last attempt the outcome is unknown,
 * which is never a decline: see resolvePayment.
 */
const { chargePayment } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** While an unanswered charge is resolved: one try each, the resolution loop sets the pace. */
const { lookupPayment, chargePayment: chargePaymentOnce } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/**
 * A void that guards against a late approval must happen before the final event: retried until it does.
 * A capture too: an unanswered capture is asked again under its own key until the processor answers.
 */
const { voidPayment, capturePayment } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * After the customer's return from a 3-D Secure challenge, the page waits on the answer: a few quick
 * tries, then the outcome counts as unknown (the payment is voided, `processor_error`).
 */
const { confirmAuthentication } = proxyActivities<CartSessionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 4 },
});

const LOOKUP_BACKOFF = { initialMs: 1_000, maximumMs: 60_000 };

/** AUTHORIZATION_HOLD_DAYS' default, for a manual session started without it. */
const DEFAULT_AUTHORIZATION_HOLD_MS = 7 * 24 * 3600_000;

/** A payment's outcome, or (only for a session under patch three-d-secure-v1) a 3-D Secure challenge to send the customer to. */
type PaymentResult =
  | { approved: true; threeDSecure?: ThreeDSecureResult }
  | { approved: false; failureCode: string; threeDSecure?: ThreeDSecureResult }
  | { approved: false; authenticate: { chargeId: string; redirectUrl: string } };
type PaymentOutcomeResult = Exclude<PaymentResult, { authenticate: unknown }>;

const EVENT_FOR_STATUS: Partial<Record<CartStatus, WebhookEventName>> = {
  processing: 'order_updated',
  paid: 'order_created',
  failed: 'order_updated',
  cancelled: 'order_cancelled',
  abandoned: 'order_abandoned',
};

interface Card {
  cardToken: string;
  brand: string;
  last4: string;
}

/** What ended the customer's part of the session before the timer did: the customer, or the merchant's expire. */
type CustomerDecision = { kind: 'pay'; card: Card } | { kind: 'cancel'; by: CancelledBy } | { kind: 'locked_out' };

interface Challenge {
  /** otpHashDigest of each code accepted (the one sent, and in sandbox SANDBOX_OTP); never a code or a hash that passes. */
  acceptedDigests: string[];
  sentAt: number;
  expiresAt: number;
}

/** One checkout attempt for one cart, from creation until it is paid, failed, cancelled or abandoned. */
export async function cartSession(input: CartSessionInput): Promise<{ status: CartStatus }> {
  const { cartId } = input;
  const otpPolicy = { ...OTP_POLICY, ...input.otpPolicy };
  const closesAt = workflowInfo().startTime.getTime() + input.lifetimeMs;
  // Sessions from before it write each step in three local activities and announce every payment as processing.
  const lean = patched(LEAN_SESSION_PATCH);

  let status: CartStatus = 'pending';
  let contact: { address: string; hint: string; key?: string } | undefined;
  let challenge: Challenge | undefined;
  let sending = false;
  /** Send and resend updates that finished, sent or not: a new attempt's update id counts them. */
  let sendAttempts = 0;
  let resends = 0;
  let wrongCodes = 0;
  let verified = false;
  let decision: CustomerDecision | undefined;
  /** When the customer pressed Pay (workflow time): the page stops waiting on an outcome some time after. */
  let paymentSubmittedAt: number | undefined;
  let payment: PaymentSummary | undefined;
  let failureCode: string | undefined;
  /** The outcome is in the ledger, its webhook event recorded and the vault emptied. */
  let settled = false;
  /** Manual capture: until when the authorization is held (workflow time), the decision that ends it, and once it is recorded. */
  let holdExpiresAt: number | undefined;
  let holdDecision: HoldDecision | undefined;
  let capturedAmount: number | undefined;
  let holdSettled = false;
  /** A 3-D Secure challenge waiting for the customer at their bank, until the return or the bound. */
  let authentication: { redirectUrl: string; until: number } | undefined;
  let returnedFromBank = false;

  const step = (): CheckoutStep => {
    if (TERMINAL_STATUSES.has(status)) return 'done';
    if (authentication && !returnedFromBank) return 'authenticating';
    if (decision?.kind === 'pay') return 'processing';
    if (verified) return 'card';
    return challenge ? 'code' : 'contact';
  };
  const state = (): CartSessionState => ({
    cartId,
    status,
    step: step(),
    expiresOn: input.expiresOn,
    sendAttempts,
    ...(contact ? { contactHint: contact.hint } : {}),
    ...(contact?.key ? { contactKey: contact.key } : {}),
    ...(challenge && !verified
      ? {
          otp: {
            attemptsLeft: otpPolicy.maxWrongCodes - wrongCodes,
            resendsLeft: otpPolicy.maxResends - resends,
            resendAvailableAt: new Date(challenge.sentAt + otpPolicy.resendIntervalMs).toISOString(),
            codeExpiresAt: new Date(challenge.expiresAt).toISOString(),
          },
        }
      : {}),
    ...(payment ? { payment } : {}),
    ...(authentication && !returnedFromBank
      ? { authentication: { redirectUrl: authentication.redirectUrl, until: new Date(authentication.until).toISOString() } }
      : {}),
    ...(paymentSubmittedAt !== undefined ? { paymentSubmittedAt: new Date(paymentSubmittedAt).toISOString() } : {}),
    ...(failureCode ? { failureCode } : {}),
    ...(status === 'cancelled' && decision?.kind === 'cancel' ? { cancelledBy: decision.by } : {}),
    ...(holdExpiresAt !== undefined
      ? { authorization: { holdExpiresAt: new Date(holdExpiresAt).toISOString(), ...(capturedAmount !== undefined ? { capturedAmount } : {}) } }
      : {}),
  });
  /** Until when an unanswered charge is being resolved, for the operator's current details. */
  let resolvingUntil: number | undefined;
  /** The Temporal UI's current details, in words (workflows/cart-session/operator-details.ts); not part of history. */
  const tell = () =>
    setCurrentDetails(
      currentDetails(state(), {
        sending,
        ...(resolvingUntil !== undefined ? { resolvingUntil } : {}),
        ...(holdExpiresAt !== undefined && !holdDecision ? { holdExpiresAt: new Date(holdExpiresAt).toISOString() } : {}),
      }),
    );
  /** Actions that end the session answer once its outcome is recorded, so the page can redirect. */
  const settledState = () => condition(() => settled).then(state);

  // --- What the customer may do, and when (validators are synchronous: a refusal never enters history).

  const requireOpen = () => {
    if (status !== 'pending' || decision) refuse(ACTION_REFUSED.sessionClosed, 'This checkout is no longer open.');
    if (Date.now() >= closesAt) refuse(ACTION_REFUSED.sessionClosed, 'This checkout has expired.');
  };
  const requireCodeStep = () => {
    requireOpen();
    if (verified) refuse(ACTION_REFUSED.alreadyVerified, 'You are already verified.');
    if (sending) refuse(ACTION_REFUSED.sendInProgress, 'A code is being sent.');
  };
  const requireResendAllowed = () => {
    if (!challenge) return;
    if (resends >= otpPolicy.maxResends) refuse(ACTION_REFUSED.resendLimit, 'No more codes can be sent for this checkout.');
    const availableAt = challenge.sentAt + otpPolicy.resendIntervalMs;
    if (Date.now() < availableAt) {
      refuse(ACTION_REFUSED.resendTooSoon, `Wait ${Math.ceil((availableAt - Date.now()) / 1000)} s before asking for a new code.`);
    }
  };

  const sendCode = async (to: { address: string; hint: string; key?: string; locale?: string }) => {
    sending = true;
    tell();
    try {
      const send = patched(LOCAL_CODE_SEND_PATCH) ? sendOtpLocally : sendOtp;
      const sent = await send({
        cartId,
        contact: to.address,
        codeLifetimeMs: otpPolicy.codeLifetimeMs,
        ...(to.locale ? { locale: to.locale } : {}),
      });
      if (challenge) resends++;
      contact = to;
      const sentAt = Date.now();
      challenge = {
        acceptedDigests: sent.acceptedDigests,
        sentAt,
        expiresAt: sentAt + otpPolicy.codeLifetimeMs,
      };
    } catch (error) {
      // An activity task's failure comes wrapped in an ActivityFailure; a local activity's as it is.
      if (error instanceof ActivityFailure || error instanceof ApplicationFailure || error instanceof TimeoutFailure)
        throw ApplicationFailure.create({ type: OTP_SEND_FAILED, message: 'The code could not be sent. Try again.', nonRetryable: true });
      throw error;
    } finally {
      sending = false;
      sendAttempts++;
      tell();
    }
    return state();
  };

  setHandler(stateQuery, state);
  tell();

  // Sending to a new contact once a code went out counts as a resend, with the same limits.
  setHandler(
    sendCodeUpdate,
    ({ contact: raw, contactKey, locale }) =>
      sendCode({
        ...parseContact(raw)!,
        ...(typeof contactKey === 'string' ? { key: contactKey } : {}),
        ...(typeof locale === 'string' ? { locale } : {}),
      }),
    {
      validator: ({ contact: raw }) => {
        requireCodeStep();
        if (typeof raw !== 'string' || !parseContact(raw)) {
          refuse(ACTION_REFUSED.invalidContact, 'Enter an email address, or a phone number with its country code (e.g. +33 6 12 34 56 78).');
        }
        requireResendAllowed();
      },
    },
  );

  setHandler(resendCodeUpdate, () => sendCode(contact!), {
    validator: () => {
      requireCodeStep();
      if (!challenge) refuse(ACTION_REFUSED.codeNotSent, 'No code has been sent yet.');
      requireResendAllowed();
    },
  });

  setHandler(
    verifyCodeUpdate,
    ({ codeHash }) => {
      if (challenge!.acceptedDigests.includes(otpHashDigest(codeHash))) {
        verified = true;
        tell();
        return state();
      }
      wrongCodes++;
      tell();
      if (wrongCodes < otpPolicy.maxWrongCodes) return state();
      decision = { kind: 'locked_out' };
      return settledState();
    },
    {
      validator: ({ codeHash }) => {
        requireCodeStep();
        if (!challenge) refuse(ACTION_REFUSED.codeNotSent, 'Ask for a code first.');
        if (typeof codeHash !== 'string' || !/^[0-9a-f]{64}$/.test(codeHash)) refuse(ACTION_REFUSED.invalidCodeHash, 'Not a code hash.');
        if (Date.now() >= challenge.expiresAt) refuse(ACTION_REFUSED.codeExpired, 'This code has expired. Ask for a new one.');
      },
    },
  );

  setHandler(
    payUpdate,
    (card) => {
      decision = { kind: 'pay', card: { cardToken: card.cardToken, brand: card.brand, last4: card.last4 } };
      paymentSubmittedAt = Date.now();
      // Pay answers with the outcome, or as soon as the customer must go to their bank's challenge,
      // so the page sends them there at once instead of waiting out its bound on the outcome.
      return condition(() => settled || authentication !== undefined).then(state);
    },
    {
      // `Card` is payUpdate's declared argument type, but update arguments come from outside: the shape is still checked.
      validator: (card: Card) => {
        if (decision?.kind === 'pay' || status !== 'pending') refuse(ACTION_REFUSED.paymentSubmitted, 'A payment was already submitted for this checkout.');
        requireOpen();
        if (!verified) refuse(ACTION_REFUSED.notVerified, 'Verify your one-time code first.');
        const wellFormed =
          typeof card?.cardToken === 'string' &&
          /^card_[A-Za-z0-9_-]{16,64}$/.test(card.cardToken) &&
          typeof card.brand === 'string' &&
          /^[a-z]{1,20}$/.test(card.brand) &&
          typeof card.last4 === 'string' &&
          /^\d{4}$/.test(card.last4);
        if (!wellFormed) refuse(ACTION_REFUSED.invalidCard, 'The card reference is not valid.');
      },
    },
  );

  setHandler(
    threeDSecureReturnUpdate,
    () => {
      returnedFromBank = true;
      tell();
      return settledState();
    },
    {
      validator: () => {
        if (!authentication || returnedFromBank || TERMINAL_STATUSES.has(status))
          refuse(ACTION_REFUSED.notAuthenticating, 'No 3-D Secure challenge is waiting for this checkout.');
      },
    },
  );

  setHandler(
    cancelUpdate,
    () => {
      decision = { kind: 'cancel', by: 'customer' };
      return settledState();
    },
    { validator: requireOpen },
  );

  // The merchant ends the session (sold out, order changed). Sessions started before this code have
  // no such handler: their histories hold no patch marker, and an expire sent to them is refused.
  if (patched(SESSION_CONTROL_PATCH)) {
    setHandler(
      expireUpdate,
      () => {
        decision = { kind: 'cancel', by: 'merchant' };
        return settledState();
      },
      {
        validator: () => {
          // A payment under way decides the session: ending it now could leave a charge without its order.
          if (decision?.kind === 'pay' && !TERMINAL_STATUSES.has(status)) refuse(ACTION_REFUSED.paymentInProgress, 'A payment is in progress.');
          requireOpen();
        },
      },
    );
  }

  // The merchant's capture and void of an authorized session; the first decision wins, the hold timer's included.
  // A refusal once decided says which way (HoldRefusalDetails): validators are not replayed, so this changes no command.
  const requireHold = () => {
    if (status !== 'authorized' || holdDecision)
      refuse(
        ACTION_REFUSED.notAuthorized,
        `This order is ${holdDecision ? 'being captured or voided' : status}: only an authorized order can be captured or voided.`,
        holdDecision ? { decided: holdDecision } : undefined,
      );
  };
  const holdSettledState = () => condition(() => holdSettled).then(state);
  setHandler(
    captureUpdate,
    ({ amount }) => {
      holdDecision = { kind: 'capture', amount: amount ?? input.amount };
      tell();
      return holdSettledState();
    },
    {
      validator: (request: { amount?: number }) => {
        requireHold();
        const amount = request?.amount;
        if (amount !== undefined && !(Number.isSafeInteger(amount) && amount >= 1 && amount <= input.amount)) {
          refuse(ACTION_REFUSED.invalidCaptureAmount, `The amount must be a whole number of minor units from 1 to ${input.amount}, the authorized amount.`);
        }
      },
    },
  );
  setHandler(
    voidUpdate,
    () => {
      holdDecision = { kind: 'void' };
      tell();
      return holdSettledState();
    },
    { validator: requireHold },
  );

  // --- The business process.

  const eventOf = (event: WebhookEventName, outcome: { failureCode?: string; cancelledBy?: CancelledBy } = {}) => ({
    cartId,
    event,
    status,
    ...(payment ? { payment } : {}),
    ...(outcome.failureCode ? { failureCode: outcome.failureCode } : {}),
    ...(outcome.cancelledBy ? { cancelledBy: outcome.cancelledBy } : {}),
  });

  /** `event` null: the step is recorded without one (a lean session's payment, until it is slow to settle). */
  const moveTo = async (
    next: CartStatus,
    outcome: { failureCode?: string; cancelledBy?: CancelledBy; capturedAmount?: number } = {},
    event: WebhookEventName | null = EVENT_FOR_STATUS[next] ?? null,
  ) => {
    status = next;
    failureCode = outcome.failureCode;
    tell();
    // A lean session's payment shows as processing in search only once it is slow (announcedIfSlow).
    if (!(lean && next === 'processing')) upsertSearchAttributes([{ key: searchAttributes.cartStatus, value: next }]);
    const card = payment
      ? { brand: payment.brand, last4: payment.last4, ...(payment.threeDSecure ? { threeDSecure: payment.threeDSecure.result } : {}) }
      : undefined;
    const change = { cartId, status: next, ...(card ? { payment: card } : {}), ...outcome };
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

  const resultOf = (outcome: PaymentOutcome): PaymentResult => {
    const threeDSecure = outcome.outcome !== 'requires_authentication' && outcome.threeDSecure ? { threeDSecure: outcome.threeDSecure } : {};
    if (outcome.outcome === 'approved') return { approved: true, ...threeDSecure };
    if (outcome.outcome === 'declined') return { approved: false, failureCode: outcome.failureCode, ...threeDSecure };
    return { approved: false, authenticate: { chargeId: outcome.chargeId, redirectUrl: outcome.redirectUrl } };
  };
  /** The charge's answer, or undefined when the processor gave none (outcome unknown). */
  const answerOf = async (charge: Promise<PaymentOutcome>): Promise<PaymentResult | undefined> => {
    try {
      return resultOf(await charge);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      return undefined;
    }
  };

  /**
   * An unknown outcome is never a decline. When the charge's retries go unanswered the session stays
   * `processing` and asks the processor what happened (lookup by the cartId, the idempotency key),
   * with backoff, for up to paymentResolutionMs; while nothing was found the charge may be retried
   * under the same key. Nothing found by then: `processor_error`, after a void by key so an approval
   * that lands later is voided and the merchant's story (one final event) stays true.
   */
  const resolvePayment = async (card: Card, options: { manual: boolean; threeDSecure: boolean }): Promise<PaymentResult> => {
    const request = {
      cartId,
      cardToken: card.cardToken,
      amount: input.amount,
      currency: input.currency,
      ...(options.manual ? { captureMethod: 'manual' as const } : {}),
      ...(options.threeDSecure ? { threeDSecure: true } : {}),
    };
    const answered = await answerOf(chargePayment(request));
    if (answered) return answered;

    const giveUpAt = Date.now() + input.paymentResolutionMs;
    let backoffMs = LOOKUP_BACKOFF.initialMs;
    let mayRecharge = true;
    resolvingUntil = giveUpAt;
    tell();
    while (Date.now() < giveUpAt) {
      await sleep(Math.min(backoffMs, giveUpAt - Date.now()));
      backoffMs = Math.min(backoffMs * 2, LOOKUP_BACKOFF.maximumMs);
      let found: PaymentLookup | undefined;
      try {
        found = await lookupPayment({ cartId });
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
      }
      if (found?.found) return resultOf(found.outcome);
      if (found && mayRecharge && Date.now() < giveUpAt) {
        const retried = await answerOf(chargePaymentOnce(request));
        // card_unavailable is our vault's answer, not the processor's: an earlier request may still land.
        if (retried && !('failureCode' in retried && retried.failureCode === 'card_unavailable')) return retried;
        if (retried) mayRecharge = false;
      }
    }
    await voidPayment({ cartId });
    return { approved: false, failureCode: 'processor_error' };
  };

  /**
   * The customer is at their bank's challenge (step `authenticating`, the page redirects them). Their
   * return (threeDSecureReturnUpdate) has the processor asked how it ended; no return within
   * THREE_DS_CHALLENGE_SECONDS, counted from now and not cut short by the session's expiry (whose
   * timer ended with the customer's decision to pay), voids the payment by its reference and fails the
   * session with `authentication_timeout`. A customer back without an answer failed the challenge.
   */
  const authenticate = async ({ chargeId, redirectUrl }: { chargeId: string; redirectUrl: string }): Promise<PaymentOutcomeResult> => {
    const boundMs = input.threeDSecureChallengeMs ?? THREE_DS_CHALLENGE_DEFAULT_MS;
    authentication = { redirectUrl, until: Date.now() + boundMs };
    tell();
    const returned = await condition(() => returnedFromBank, boundMs, { summary: `${duration(boundMs)} bound of the 3-D Secure challenge` });
    authentication = undefined;
    tell();
    if (!returned) {
      await voidPayment({ cartId, chargeId });
      return { approved: false, failureCode: AUTHENTICATION_TIMEOUT, threeDSecure: 'failed' };
    }
    let confirmed: PaymentResult | undefined;
    try {
      confirmed = resultOf(await confirmAuthentication({ cartId, chargeId }));
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
    }
    if (confirmed && !('authenticate' in confirmed)) return confirmed;
    await voidPayment({ cartId, chargeId });
    return confirmed ? { approved: false, failureCode: 'authentication_failed', threeDSecure: 'failed' } : { approved: false, failureCode: 'processor_error' };
  };

  /**
   * A lean session tells the merchant `processing` (order_updated) only when the payment is slow to
   * settle: no answer within PROCESSING_EVENT_AFTER_MS (an unanswered charge being resolved), or a 3-D
   * Secure challenge to wait on. A prompt outcome is announced by its final event alone, as card
   * processors do, which spares every such payment a delivery (docs/decisions/session-cost.md).
   */
  const announcedIfSlow = async (charge: () => Promise<PaymentResult>): Promise<PaymentResult> => {
    await moveTo('processing', {}, null);
    let answer: PaymentResult | undefined;
    const answering = charge().then((result) => (answer = result));
    const prompt = await condition(() => answer !== undefined, PROCESSING_EVENT_AFTER_MS, {
      summary: `${duration(PROCESSING_EVENT_AFTER_MS)} wait for the outcome before processing goes to the merchant`,
    });
    if (!prompt || 'authenticate' in (await answering)) {
      upsertSearchAttributes([{ key: searchAttributes.cartStatus, value: status }]);
      await recordSessionStep({ status: { cartId, status }, event: eventOf('order_updated') });
    }
    return answering;
  };

  const takePayment = async (card: Card) => {
    // Sessions from before it charge without a return URL, as they did: a challenge is then a decline.
    const threeDSecure = patched('three-d-secure-v1');
    // Only a manual-capture cart takes the new path; its histories carry the marker (CHANGELOG.md, manual-capture-v1).
    const manual = input.captureMethod === 'manual' && patched('manual-capture-v1');
    payment = { brand: card.brand, last4: card.last4, ...(manual ? { captureMethod: 'manual' as const } : {}) };
    if (!lean) await moveTo('processing');
    const answered = lean ? await announcedIfSlow(() => resolvePayment(card, { manual, threeDSecure })) : await resolvePayment(card, { manual, threeDSecure });
    const result = 'authenticate' in answered ? await authenticate(answered.authenticate) : answered;
    const secured = result.threeDSecure ? { threeDSecure: { result: result.threeDSecure } } : {};
    if (result.approved) {
      payment = { ...payment, ...secured };
      if (!manual) return moveTo('paid');
      holdExpiresAt = Date.now() + (input.authorizationHoldMs ?? DEFAULT_AUTHORIZATION_HOLD_MS);
      return moveTo('authorized', {}, 'order_created');
    }
    payment = { ...payment, failureCode: result.failureCode, ...secured };
    return moveTo('failed', { failureCode: result.failureCode });
  };

  const customerDecided = await condition(() => decision !== undefined, input.lifetimeMs, { summary: `${duration(input.lifetimeMs)} expiry of the session` });
  if (!customerDecided) await moveTo('abandoned');
  else if (decision!.kind === 'pay') await takePayment(decision!.card);
  else if (decision!.kind === 'cancel') await moveTo('cancelled', { cancelledBy: decision!.by });
  else await moveTo('failed', { failureCode: OTP_LOCKED });

  // No card outlives its session, whether it was charged, declined or never used (a lean session's last step emptied the vault).
  if (!lean) await discardCards({ cartId });
  settled = true;
  if (state().status === 'authorized') await holdAuthorization();
  await condition(allHandlersFinished);
  return { status };

  /**
   * The session keeps the authorization it made (docs/decisions/manual-capture.md): the merchant's
   * capture or void, or this timer, whichever comes first, decides; the updates' validators refuse
   * whatever comes after. Capture moves to `paid` (order_updated), void and expiry to `cancelled`
   * (order_cancelled), after the processor released the hold.
   */
  async function holdAuthorization(): Promise<void> {
    const holdMs = holdExpiresAt! - Date.now();
    tell();
    await condition(() => holdDecision !== undefined, Math.max(holdMs, 1), { summary: `${duration(holdMs)} authorization hold` });
    const decided: HoldDecision = (holdDecision ??= { kind: 'expire' });
    tell();
    if (decided.kind === 'capture') {
      const answer = await capturePayment({ cartId, amount: decided.amount });
      if (answer.outcome === 'captured') {
        capturedAmount = decided.amount;
        payment = { ...payment!, capturedAmount };
        await moveTo('paid', { capturedAmount }, 'order_updated');
      } else {
        payment = { ...payment!, failureCode: CAPTURE_DECLINED };
        await moveTo('failed', { failureCode: CAPTURE_DECLINED });
      }
    } else {
      await voidPayment({ cartId });
      await moveTo('cancelled', decided.kind === 'expire' ? { failureCode: AUTHORIZATION_EXPIRED } : {});
    }
    holdSettled = true;
  }
}

function refuse(type: ActionRefusal, message: string, details?: HoldRefusalDetails): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true, ...(details ? { details: [details] } : {}) });
}
