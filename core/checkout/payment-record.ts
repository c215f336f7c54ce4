import type { ThreeDSecureResult } from './payment-processor.js';

/**
 * The customer's payment, one record from Pay to the webhook body: the session builds it once, when
 * the payment is taken (workflows/cart-session/payment.ts), adds what its outcome says, and hands it as
 * it is to the ledger (cart-ledger.ts recordCartStatus) and to the event (core/webhooks/cart-events.ts),
 * where the order model (order-model.ts) is what the merchant reads. Never a number, never a CVV.
 */
export interface PaymentRecord {
  brand: string;
  last4: string;
  failureCode?: string;
  captureMethod?: 'manual';
  capturedAmount?: number;
  threeDSecure?: { result: ThreeDSecureResult };
  /** Paid with a saved card (1.2 sessions); absent: not. */
  savedCard?: boolean;
}

/** The record of a card the customer just paid with, before any outcome. */
export function paymentRecord(card: { brand: string; last4: string; savedCardId?: string }, facts: { manual: boolean; savedCards: boolean }): PaymentRecord {
  return {
    brand: card.brand,
    last4: card.last4,
    ...(facts.manual ? { captureMethod: 'manual' as const } : {}),
    ...(facts.savedCards ? { savedCard: card.savedCardId !== undefined } : {}),
  };
}

/**
 * 3-D Secure's result in a record. A ledger step scheduled by a session before 1.3 (an activity still
 * running across the upgrade) carries the result flat, as a string: read either way until those drain.
 */
export function threeDSecureResultOf(record: PaymentRecord | undefined): ThreeDSecureResult | undefined {
  const recorded = record?.threeDSecure as PaymentRecord['threeDSecure'] | ThreeDSecureResult | undefined;
  return typeof recorded === 'string' ? recorded : recorded?.result;
}
