import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineUpdate } from '@temporalio/workflow';

/**
 * The contract between the cart-session workflow and everything that talks to it: the API starts it,
 * the hosted page queries and updates it, operators search it. Workflow-safe imports only.
 */

export const CART_SESSION_WORKFLOW = 'cartSession';

export type CartStatus = 'pending' | 'processing' | 'paid' | 'failed' | 'cancelled' | 'abandoned' | 'partially_refunded' | 'refunded';

export const TERMINAL_STATUSES: ReadonlySet<CartStatus> = new Set(['paid', 'failed', 'cancelled', 'abandoned', 'partially_refunded', 'refunded']);

export interface CartSessionInput {
  cartId: string;
  platformUuid: string;
  storeName: string;
  amount: number;
  currency: string;
  /** ISO 8601; when the session stops accepting a customer. */
  expiresOn: string;
  /** From server config, never from the request: 45 minutes except in tests. */
  lifetimeMs: number;
  /**
   * One-time-code timings. The API never sets them, so every real session gets OTP_POLICY; they
   * exist so tests can watch a code expire or a resend window open without waiting minutes.
   */
  otpPolicy?: Partial<OtpPolicy>;
}

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

/** Where the customer is on the hosted page. */
export type CheckoutStep = 'contact' | 'code' | 'card' | 'processing' | 'done';

export interface CartSessionState {
  cartId: string;
  status: CartStatus;
  step: CheckoutStep;
  expiresOn: string;
  /** The contact the code went to, masked for display ("j***@example.com", "•••• 4567"). */
  contactHint?: string;
  otp?: {
    /** Wrong codes still allowed before the session fails. */
    attemptsLeft: number;
    resendsLeft: number;
    /** ISO 8601; a resend is refused before this. */
    resendAvailableAt: string;
    /** ISO 8601; the current code stops working at this time. */
    codeExpiresAt: string;
  };
  payment?: { brand: string; last4: string; failureCode?: string };
  /** Set when status is `failed`: the payment's decline code, or `otp_locked`. */
  failureCode?: string;
}

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
} as const;
export type ActionRefusal = (typeof ACTION_REFUSED)[keyof typeof ACTION_REFUSED];

/** The type of the failure sendCode/resendCode end with when the OtpSender kept failing; retrying is fine. */
export const OTP_SEND_FAILED = 'otp_send_failed';

export interface ParsedContact {
  channel: 'email' | 'sms';
  /** The address as the code is sent to it: lower-cased email, or E.164 phone (`+33612345678`). */
  address: string;
  /** What the page may show back: `j***@example.com`, `•••• 5678`. */
  hint: string;
}

/** Email, or a phone number with its country code (`+` or `00`); spaces, dots, dashes, brackets allowed. */
export function parseContact(raw: string): ParsedContact | undefined {
  const value = raw.trim();
  if (value.includes('@')) {
    if (value.length > 254 || !/^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/.test(value)) return undefined;
    const [local = '', domain = ''] = value.toLowerCase().split('@');
    return { channel: 'email', address: `${local}@${domain}`, hint: `${local[0]}***@${domain}` };
  }
  const phone = value.replace(/[\s().-]/g, '').replace(/^00/, '+');
  if (!/^\+[1-9]\d{7,14}$/.test(phone)) return undefined;
  return { channel: 'sms', address: phone, hint: `•••• ${phone.slice(-4)}` };
}

export const stateQuery = defineQuery<CartSessionState>('state');

/**
 * Customer actions. None carries a secret in clear: the OTP arrives as a keyed hash computed by the
 * web tier (core/otp-hash.ts, keyed with config.dataEncryptionKey), the card as a vault token
 * (core/card-vault.ts). Each returns the new state; an action that does not fit the current state is
 * rejected by its validator with an ApplicationFailure whose type is one of ACTION_REFUSED.
 * A wrong code is not a refusal: verifyCode returns the state with one attempt fewer (step stays
 * `code`), or with status `failed` / failureCode `otp_locked` after the last one.
 * `pay` resolves once the payment has an outcome (status `paid` or `failed`); with processor retries
 * that can take a few seconds, so a caller that gives up earlier can follow the `state` query.
 * Use the update id as the idempotency key of the action (e.g. `pay-<cartId>`).
 */
export const sendCodeUpdate = defineUpdate<CartSessionState, [{ contact: string }]>('sendCode');
export const resendCodeUpdate = defineUpdate<CartSessionState, []>('resendCode');
export const verifyCodeUpdate = defineUpdate<CartSessionState, [{ codeHash: string }]>('verifyCode');
export const payUpdate = defineUpdate<CartSessionState, [{ cardToken: string; brand: string; last4: string }]>('pay');
export const cancelUpdate = defineUpdate<CartSessionState, []>('cancel');

/** Search attributes registered on the Temporal server (see scripts/temporal-server.ts). */
export const searchAttributes = {
  merchantId: defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD),
  cartStatus: defineSearchAttributeKey('CartStatus', SearchAttributeType.KEYWORD),
  cartTotal: defineSearchAttributeKey('CartTotal', SearchAttributeType.INT),
  currency: defineSearchAttributeKey('Currency', SearchAttributeType.KEYWORD),
} as const;

/** `--search-attribute` values for `temporal server start-dev`, and the operator's reference. */
export const SEARCH_ATTRIBUTE_DEFINITIONS = ['MerchantId=Keyword', 'CartStatus=Keyword', 'CartTotal=Int', 'Currency=Keyword'] as const;
