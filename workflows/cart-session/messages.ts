import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';

import type { CancelledBy, CartStatus, CheckoutStep, OtpPolicy } from '../../core/checkout/session.js';
import type { ThreeDSecureResult } from '../../core/checkout/payment-processor.js';

/**
 * The contract between the cart-session workflow and everything that talks to it: the API starts it,
 * the hosted page queries and updates it, operators search it. Workflow-safe imports only; the
 * domain vocabulary (statuses, steps, OTP policy, refusals) lives in core/checkout/session.ts.
 */

export function cartWorkflowId(cartId: string): string {
  return `cart-${cartId}`;
}

export interface CartSessionInput {
  cartId: string;
  platformUuid: string;
  storeName: string;
  amount: number;
  currency: string;
  /** ISO 8601; when the session stops accepting a customer. */
  expiresOn: string;
  /**
   * The session's timer: the merchant's `cartObject.cart.sessionMinutes` when it sent one, else the
   * server's SESSION_LIFETIME_SECONDS (45 minutes except in tests). Histories from before
   * sessionMinutes carry the server's value here, so their timer is unchanged.
   */
  lifetimeMs: number;
  /**
   * From server config (PAYMENT_RESOLUTION_SECONDS): how long an unanswered charge is resolved by
   * lookups before it fails.
   */
  paymentResolutionMs: number;
  /**
   * From server config (THREE_DS_CHALLENGE_SECONDS): how long the session waits for the customer to
   * come back from their bank's challenge. Absent in sessions started before it existed: the default.
   */
  threeDSecureChallengeMs?: number;
  /**
   * One-time-code timings. The API never sets them, so every real session gets OTP_POLICY; they
   * exist so tests can watch a code expire or a resend window open without waiting minutes.
   */
  otpPolicy?: Partial<OtpPolicy>;
  /** The cart's `captureMethod: "manual"`: the charge is authorized only, and the session holds it (absent: captured at once). */
  captureMethod?: 'manual';
  /** From server config (AUTHORIZATION_HOLD_DAYS), with captureMethod manual: how long an uncaptured authorization is held before it is voided. */
  authorizationHoldMs?: number;
  /**
   * Set for a cart with `recovery.enabled` that is not itself a recovery: how long after the
   * abandonment the session sends its one reminder (workflows/cart-session/reminder.ts), if the
   * customer verified a contact and asked for it. The cart's `reminderMinutes` (60 when absent), or
   * the server's RECOVERY_REMINDER_DELAY_SECONDS in tests. Absent: no reminder.
   */
  recoveryReminderMs?: number;
}

export interface CartSessionState {
  cartId: string;
  status: CartStatus;
  step: CheckoutStep;
  expiresOn: string;
  /**
   * Send and resend attempts finished so far, sent or failed. The page puts it in the update id, so
   * a double click is one update while a new attempt after a failed send is a new one (Temporal
   * answers a repeated update id with its recorded outcome, failures included). Absent from a finished
   * session's state, which the page reads from the ledger (web/checkout/load-session.ts).
   */
  sendAttempts?: number;
  /** The contact the code went to, masked for display ("j***@example.com", "•••• 4567"). */
  contactHint?: string;
  /**
   * The keyed hash of that contact the page sent with it (core/checkout/otp/destination.ts), so a
   * resend is counted against the same destination's limit. Absent if the page sent none.
   */
  contactKey?: string;
  /**
   * The keyed hash of the exact contact the customer verified (core/checkout/saved-card-contact.ts), set
   * once verified: the one key its saved cards are kept and found under. Absent if the page sent none.
   */
  cardKey?: string;
  otp?: {
    /** Wrong codes still allowed before the session fails. */
    attemptsLeft: number;
    resendsLeft: number;
    /** ISO 8601; a resend is refused before this. */
    resendAvailableAt: string;
    /** ISO 8601; the current code stops working at this time. */
    codeExpiresAt: string;
  };
  payment?: { brand: string; last4: string; failureCode?: string; threeDSecure?: { result: ThreeDSecureResult }; savedCard?: boolean };
  /**
   * Set while the step is `authenticating`: where the page sends the customer (their bank's
   * challenge), and until when (ISO 8601) the session waits for them to come back.
   */
  authentication?: { redirectUrl: string; until: string };
  /** ISO 8601; when the customer pressed Pay. Absent until then. */
  paymentSubmittedAt?: string;
  /** Set when status is `failed`: the payment's decline code, or `otp_locked`. */
  failureCode?: string;
  /** Set when status is `cancelled`: who ended the session. */
  cancelledBy?: CancelledBy;
  /**
   * A verified session another browser asked to act for (docs/security.md, "One browser"): the fresh
   * code sent to the verified contact for it, until it is verified, runs out of attempts or expires.
   */
  rebind?: {
    attemptsLeft: number;
    resendsLeft: number;
    /** ISO 8601; another code is refused before this. */
    resendAvailableAt: string;
    /** ISO 8601; this code stops working at this time. */
    codeExpiresAt: string;
  };
  /** A manual-capture session, once authorized: until when the hold waits, and what the capture took. */
  authorization?: { holdExpiresAt: string; capturedAmount?: number };
}

export const stateQuery = defineQuery<CartSessionState>('state');

/**
 * Customer actions. None carries a secret in clear: the OTP arrives as a keyed hash computed by the
 * web tier (core/checkout/otp/hash.ts), the card as a vault token
 * (core/checkout/card-vault.ts). Each returns the new state; an action that does not fit the current state is
 * rejected by its validator with an ApplicationFailure whose type is one of ACTION_REFUSED.
 * A wrong code is not a refusal: verifyCode returns the state with one attempt fewer (step stays
 * `code`), or with status `failed` / failureCode `otp_locked` after the last one.
 * `pay` resolves once the payment has an outcome (status `paid`, `authorized` or `failed`), or once the
 * customer must authenticate at their bank (step `authenticating`, `authentication.redirectUrl`); with
 * processor retries that can take a few seconds, so a caller that gives up earlier can follow the `state` query.
 * Use the update id as the idempotency key of the action (e.g. `pay-<cartId>`).
 */
/**
 * `contactKey`: the destination's keyed hash, kept and shown back in the state (never the contact in clear there).
 * `cardKey`: the exact contact's keyed hash, under which its saved cards are kept, shown back once verified.
 * `locale`: the page's language, for the code message (and its resends, and the reminder); English when absent.
 * `remind`: the customer ticked "Remind me if I don't finish" (a cart with recovery only); it counts
 * once this contact is verified. Absent: false (and ignored by sessions started before 1.2).
 */
export const sendCodeUpdate = defineUpdate<CartSessionState, [{ contact: string; contactKey?: string; cardKey?: string; locale?: string; remind?: boolean }]>(
  'sendCode',
);
/**
 * Once the session is verified, resendCode and verifyCode serve another browser holding the cartId:
 * resendCode sends a fresh code to the verified contact (counted with the resends), verifyCode checks
 * it and answers the state once it matched; a wrong code is refused (`code_wrong`), and after the last
 * attempt the code is dropped (`rebind_locked`). The session itself never fails for it.
 */
export const resendCodeUpdate = defineUpdate<CartSessionState, []>('resendCode');
export const verifyCodeUpdate = defineUpdate<CartSessionState, [{ codeHash: string }]>('verifyCode');
/**
 * `pay`: the vault's card token (`save: true` when the customer ticked "Save this card"), or, in a 1.2
 * session, `savedCardId`: a saved card of the contact the session verified (docs/saved-cards.md).
 */
export const payUpdate = defineUpdate<CartSessionState, [{ cardToken?: string; savedCardId?: string; save?: boolean; brand: string; last4: string }]>('pay');
export const cancelUpdate = defineUpdate<CartSessionState, []>('cancel');
/**
 * The customer is back from their bank's 3-D Secure challenge (the page's `/3ds/return`): the session
 * asks the processor how it ended and resolves once the outcome is recorded. Refused with
 * `not_authenticating` when no challenge waits. Update id `three-d-secure-return-<cartId>`, so a
 * return posted twice is one completion.
 */
export const threeDSecureReturnUpdate = defineUpdate<CartSessionState, []>('threeDSecureReturn');

/**
 * The merchant ends an open session now (`POST /v2/merchant/carts/{cartId}/expire`): `cancelled`, with
 * `order_cancelled` saying `cancelledBy: "merchant"`. Refused with ACTION_REFUSED.paymentInProgress once
 * the customer pressed Pay (until the outcome), with sessionClosed once the session ended. Sessions
 * started before 1.1 have no such handler, and refuse it. Update id: `expire-<cartId>`.
 */
export const expireUpdate = defineUpdate<CartSessionState, []>('expire');

/**
 * The merchant's actions on an `authorized` session (the merchant API, through
 * ./client.ts): capture all or part of the hold (`amount` in minor units, at most the authorized
 * amount; absent: all of it), or void it. Each resolves once its outcome is recorded. Refused with
 * ACTION_REFUSED.notAuthorized when the session holds no authorization (any more): capture, void and
 * the hold timer are decided one at a time by the workflow, so only the first of them happens; the
 * refusal's details say which (HoldRefusalDetails). The API sends each capture with the update id
 * `capture-<cartId>-<amount>`: the same capture again is the same update and gets its outcome.
 */
export const captureUpdate = defineUpdate<CartSessionState, [{ amount?: number }]>('capture');
export const voidUpdate = defineUpdate<CartSessionState, []>('void');

/**
 * The sandbox helpers' test clock (`POST /v2/sandbox/carts/{cartId}/advance`, api/sandbox/): fires one
 * of the session's timers now, as if its time had come: the session's expiry (`expired`: abandoned),
 * a manual-capture hold's (`authorization_expired`: voided, cancelled), or an abandoned session's
 * recovery reminder delay (`reminder_due`: sent). Answers once its outcome is recorded (the reminder:
 * once its wait ended). Refused with ACTION_REFUSED.nothingToAdvance when that timer is not running.
 * A 1.3 session's (./release.ts `advancesClock`); the API sends it in a sandbox deployment only.
 * Update id `advance-<cartId>-<to>`.
 */
export const CLOCK_TARGETS = ['expired', 'authorization_expired', 'reminder_due'] as const;
export type ClockTarget = (typeof CLOCK_TARGETS)[number];
export const advanceClockUpdate = defineUpdate<CartSessionState, [{ to: ClockTarget }]>('advanceClock');

/** What ends an authorized hold: the merchant's capture (of `amount`, minor units) or void, or the hold timer. Decided once. */
export type HoldDecision = { kind: 'capture'; amount: number } | { kind: 'void' } | { kind: 'expire' };

/**
 * The details (first and only) of a capture's or void's ACTION_REFUSED.notAuthorized once the hold is
 * decided: which way, so a capture of another amount than the decided one learns it lost
 * (CAPTURE_ALREADY_DECIDED, docs/decisions/manual-capture.md). Absent when the session never held an
 * authorization, and from workers older than it.
 */
export interface HoldRefusalDetails {
  decided: HoldDecision;
}

/** Search attributes registered on the Temporal server (see scripts/temporal-server.ts). */
export const searchAttributes = {
  merchantId: defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD),
  cartStatus: defineSearchAttributeKey('CartStatus', SearchAttributeType.KEYWORD),
  cartTotal: defineSearchAttributeKey('CartTotal', SearchAttributeType.INT),
  currency: defineSearchAttributeKey('Currency', SearchAttributeType.KEYWORD),
} as const;

/** `--search-attribute` values for `temporal server start-dev`, and the operator's reference. */
export const SEARCH_ATTRIBUTE_DEFINITIONS = ['MerchantId=Keyword', 'CartStatus=Keyword', 'CartTotal=Int', 'Currency=Keyword'] as const;
