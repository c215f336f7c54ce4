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
}

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
}

export const stateQuery = defineQuery<CartSessionState>('state');

/**
 * Customer actions. None carries a secret in clear: the OTP arrives as a keyed hash computed by the
 * web tier (core/otp-hash.ts), the card as a vault token (core/card-vault.ts). Each returns the new
 * state; an action that does not fit the current state is rejected by its validator.
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
