/**
 * The checkout session's domain vocabulary, shared by the workflow, the activities, the API and the
 * page. Workflow-safe: it imports nothing, so the workflow bundle can take it as it is.
 */

/**
 * `authorized`: a manual-capture session's card is held, not charged; the merchant captures (→ `paid`)
 * or voids (→ `cancelled`), or the hold timer voids it (docs/decisions/manual-capture.md).
 */
export const CART_STATUSES = ['pending', 'processing', 'authorized', 'paid', 'failed', 'cancelled', 'abandoned', 'partially_refunded', 'refunded'] as const;
export type CartStatus = (typeof CART_STATUSES)[number];

/** Statuses where the customer's part is over: the page shows the outcome (an authorized hold is one, for the customer). */
export const TERMINAL_STATUSES: ReadonlySet<CartStatus> = new Set(['authorized', 'paid', 'failed', 'cancelled', 'abandoned', 'partially_refunded', 'refunded']);

/** Statuses of a session the customer can still pay on. */
export const OPEN_STATUSES: ReadonlySet<CartStatus> = new Set(['pending', 'processing']);

/** Statuses of a session whose payment succeeded: authorized (held), captured, or refunded since. */
export const PAID_STATUSES: ReadonlySet<CartStatus> = new Set(['authorized', 'paid', 'partially_refunded', 'refunded']);

/** `automatic`: the charge is captured at once. `manual`: authorized at checkout, captured or voided by the merchant later. */
export const CAPTURE_METHODS = ['automatic', 'manual'] as const;
export type CaptureMethod = (typeof CAPTURE_METHODS)[number];

/** Why an authorized hold ended without a capture: the hold timer (AUTHORIZATION_HOLD_DAYS) ran out. */
export const AUTHORIZATION_EXPIRED = 'authorization_expired';
/** Why a capture failed: the processor refused it (an authorization it no longer holds). */
export const CAPTURE_DECLINED = 'capture_declined';

/** Who ended a `cancelled` session: the customer on the page, or the merchant through the API (`/v2/merchant/carts/{cartId}/expire`). */
export const CANCELLED_BY = ['customer', 'merchant'] as const;
export type CancelledBy = (typeof CANCELLED_BY)[number];

/** Where the customer is on the hosted page; `authenticating`: at their bank's 3-D Secure challenge. */
export type CheckoutStep = 'contact' | 'code' | 'card' | 'processing' | 'authenticating' | 'done';

export interface OtpPolicy {
  codeLifetimeMs: number;
  /** Wrong codes before the session fails with `otp_locked`. */
  maxWrongCodes: number;
  maxResends: number;
  resendIntervalMs: number;
}

export const OTP_POLICY: OtpPolicy = { codeLifetimeMs: 5 * 60_000, maxWrongCodes: 5, maxResends: 3, resendIntervalMs: 30_000 };

/** Why a session failed; payment decline codes come from the processor. */
export const OTP_LOCKED = 'otp_locked';

/** Why a session failed whose 3-D Secure challenge went unanswered for THREE_DS_CHALLENGE_SECONDS (the payment is voided). */
export const AUTHENTICATION_TIMEOUT = 'authentication_timeout';

/** THREE_DS_CHALLENGE_SECONDS' default, for sessions started before create-cart handed the bound in. */
export const THREE_DS_CHALLENGE_DEFAULT_MS = 600_000;

/** A payment without an outcome after this long is announced to the merchant as `processing` (order_updated). */
export const PROCESSING_EVENT_AFTER_MS = 2_000;

/**
 * Why a customer action was refused: the `type` of the ApplicationFailure an update validator
 * throws, so the page can show the right message (the failure's `message` is written for people).
 */
export const ACTION_REFUSED = {
  sessionClosed: 'session_closed',
  invalidContact: 'invalid_contact',
  codeNotSent: 'code_not_sent',
  alreadyVerified: 'already_verified',
  sendInProgress: 'send_in_progress',
  resendLimit: 'resend_limit',
  resendTooSoon: 'resend_too_soon',
  codeExpired: 'code_expired',
  invalidCodeHash: 'invalid_code_hash',
  notVerified: 'not_verified',
  paymentSubmitted: 'payment_submitted',
  invalidCard: 'invalid_card',
  /** The merchant's expire, refused: a payment has started and its outcome decides the session. */
  paymentInProgress: 'payment_in_progress',
  /** Capture or void of a session that holds no authorization (never authorized, or already captured or voided). */
  notAuthorized: 'not_authorized',
  invalidCaptureAmount: 'invalid_capture_amount',
  notAuthenticating: 'not_authenticating',
  /** Another browser's code for a verified session was wrong (a first verification's is not a refusal). */
  codeWrong: 'code_wrong',
  /** Another browser used up its attempts on a verified session's code: it must ask for a new one. */
  rebindLocked: 'rebind_locked',
  /** The sandbox test clock's advance, refused: the timer it names is not running (workflows/cart-session/test-clock.ts). */
  nothingToAdvance: 'nothing_to_advance',
} as const;
export type ActionRefusal = (typeof ACTION_REFUSED)[keyof typeof ACTION_REFUSED];

/** The type of the failure sendCode/resendCode end with when the MessageSender kept failing; retrying is fine. */
export const OTP_SEND_FAILED = 'otp_send_failed';
