import type { Card } from './cards.js';
import type { CaptureMethod } from './session.js';
import type { DisputeEvidence } from './dispute-evidence.js';
import type { DisputeStatus } from './dispute-model.js';

export interface ChargeRequest {
  /** The processor returns the first result again for a repeated key: a retry never charges twice. */
  idempotencyKey: string;
  /** ISO 4217 minor units of `currency`; the adapter sends them in the processor's own units (core/checkout/processor-amounts.ts). */
  amount: number;
  currency: string;
  card: Card;
  /** `manual`: authorize only, capture later (`capture`) or release (`void`). Absent: `automatic`. */
  captureMethod?: CaptureMethod;
  /**
   * Where the cardholder's bank sends them back after a 3-D Secure challenge (our `/3ds/return`).
   * Without it the processor must not start a challenge: a card that demands one is declined with
   * `authentication_required`.
   */
  returnUrl?: string;
}

/**
 * Why a card was refused, as the merchant's `failureCode` names it (docs/decisions/webhooks.md).
 * `processing_error` is the network failing this one attempt (no money moved; trying again may work),
 * unlike `processor_error`, a charge that never got an answer; `authentication_required` is a card
 * that wants 3-D Secure when the charge gave no `returnUrl`; `authentication_failed` is a challenge
 * the cardholder failed or abandoned at their bank.
 */
export type DeclineCode =
  | 'card_declined'
  | 'insufficient_funds'
  | 'not_a_test_card'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'incorrect_number'
  | 'processing_error'
  | 'authentication_required'
  | 'authentication_failed';

/**
 * What 3-D Secure did for a payment: the cardholder passed a challenge (`authenticated`), the issuer
 * authenticated them without one (`frictionless`), the challenge was failed or never answered
 * (`failed`), or the payment needed none (`not_required`).
 */
export const THREE_D_SECURE_RESULTS = ['authenticated', 'frictionless', 'failed', 'not_required'] as const;
export type ThreeDSecureResult = (typeof THREE_D_SECURE_RESULTS)[number];

/**
 * A charge is an authorization and its capture in one call (with `captureMethod: 'manual'`, the
 * authorization alone: chargeId names the hold), or, when the issuer demands a 3-D Secure
 * challenge, a payment waiting for the cardholder at `redirectUrl`: `authenticationResult` by its
 * `chargeId` tells how it ended once they are back. `threeDSecure` is absent only where the processor
 * cannot tell.
 */
export type ChargeResult =
  | { outcome: 'approved'; chargeId: string; threeDSecure?: ThreeDSecureResult }
  | { outcome: 'declined'; declineCode: DeclineCode; threeDSecure?: ThreeDSecureResult }
  | { outcome: 'requires_authentication'; chargeId: string; redirectUrl: string };

export type LookupResult = { found: false } | { found: true; result: ChargeResult };

export interface VoidRequest {
  idempotencyKey: string;
  /**
   * The charge to void, when one was found. Without it the void is by key alone: whatever this key
   * charged, or charges later (an approval still in flight), is voided.
   */
  chargeId?: string;
}

export interface RefundRequest {
  /** Its own key, so a retried refund refunds once. */
  idempotencyKey: string;
  chargeId: string;
  /** ISO 4217 minor units of `currency`; the adapter sends them in the processor's own units. */
  amount: number;
  currency: string;
}

export interface CaptureRequest {
  /** Its own key (the cart's key with a suffix), so a retried capture captures once. */
  idempotencyKey: string;
  /** The authorization to capture. */
  chargeId: string;
  /** ISO 4217 minor units of `currency`, at most what was authorized; the rest of the hold is released. */
  amount: number;
  currency: string;
}

/** A refused capture (the processor no longer holds the authorization) is a result; only no answer throws. */
export type CaptureResult = { outcome: 'captured' } | { outcome: 'declined'; declineCode: 'capture_declined' };

/** Why a processor refused a refund; the refund then fails and its amount is released. */
export type RefundDeclineCode = 'refund_declined' | 'charge_not_found';

export type RefundResult = { outcome: 'refunded'; refundId: string } | { outcome: 'declined'; declineCode: RefundDeclineCode };

/**
 * The processor gave no answer (timeout, 5xx, network): the outcome is unknown, which is never a
 * decline. Retryable.
 */
export class ProcessorUnavailableError extends Error {
  override name = 'ProcessorUnavailableError';
}

/**
 * The processor refused the merchant's dispute answer (its deadline passed, the dispute closed): asking
 * again would be refused again. Not retryable.
 */
export class DisputeAnswerRefusedError extends Error {
  override name = 'DisputeAnswerRefusedError';
}

/**
 * A card kept at the processor for a customer who consented (docs/saved-cards.md): its references
 * only. Stripe: the Customer and the PaymentMethod attached to it; the sandbox: its saved-card
 * reference, no customer.
 */
export interface SavedCardReference {
  customerRef?: string;
  paymentMethodRef: string;
}

export interface SaveCardRequest {
  /** The cart's key: the saving steps each get their own key derived from it, so a retry saves once. */
  idempotencyKey: string;
  card: Card;
  /** The processor's customer already holding this contact's saved cards, if any: the new card joins it. */
  customerRef?: string;
}

/** What the processor kept, as the page will show it; or the card refused before any payment was tried. */
export type SaveCardResult =
  | { outcome: 'saved'; reference: SavedCardReference; brand: string; last4: string; expMonth: number; expYear: number }
  | { outcome: 'declined'; declineCode: DeclineCode };

/** A charge of a saved card: its references stand for the card, and no number or CVV travels. */
export interface SavedChargeRequest extends Omit<ChargeRequest, 'card'> {
  saved: SavedCardReference;
  /** The card was saved for this payment: the processor keeps it for payments with the customer present (Stripe: setup_future_usage on_session). */
  keepForLater?: boolean;
}

/**
 * Charges card payments and answers for them afterwards. Declines are results; only an unanswered
 * request throws (ProcessorUnavailableError), and then `lookup` by the same key tells what happened.
 */
export interface PaymentProcessor {
  readonly name: string;
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /**
   * How a payment that required authentication stands now: approved or declined once the cardholder
   * finished the challenge, `requires_authentication` while they have not. A processor that never
   * answers `requires_authentication` need not have it.
   */
  authenticationResult?(request: { idempotencyKey: string; chargeId: string }): Promise<ChargeResult>;
  /** What the processor did for this key, if anything reached it. */
  lookup(request: { idempotencyKey: string }): Promise<LookupResult>;
  /** Cancels the charge of this key before settlement (an authorization: releases the hold); sticky, so a late approval is voided too. */
  void(request: VoidRequest): Promise<void>;
  /** Captures all or part of a manual authorization, once per key. */
  capture(request: CaptureRequest): Promise<CaptureResult>;
  /** Refunds are results too: a refusal is `declined`; only an unanswered request throws, and is retried under the same key. */
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * Saved cards (docs/saved-cards.md): keep a card for a consenting customer, charge it by its
   * references, and let it go. A processor without them offers no saving: the page shows no consent.
   */
  saveCard?(request: SaveCardRequest): Promise<SaveCardResult>;
  chargeSaved?(request: SavedChargeRequest): Promise<ChargeResult>;
  /** Detaches the card from its customer: the processor can no longer charge it. Detaching one already gone is no error. */
  detachCard?(reference: SavedCardReference): Promise<void>;
  /**
   * Disputes (docs/webhooks.md, order_disputed): the merchant's answer, sent once their evidence or
   * acceptance is recorded. Each answers the dispute's status after it (evidence: `under_review`;
   * accepting: `lost`); repeating an answer the processor already has is no error. An answer the
   * processor refuses throws DisputeAnswerRefusedError. A processor without them takes no answer through us.
   */
  submitDisputeEvidence?(request: { disputeId: string; evidence: DisputeEvidence }): Promise<DisputeStatus>;
  acceptDispute?(request: { disputeId: string }): Promise<DisputeStatus>;
}
