import type { CartProvenance } from '../checkout/cart-provenance.js';
import type { CartStatus } from '../checkout/session.js';
import type { ThreeDSecureResult } from '../checkout/payment-processor.js';

/** The five event names merchants code against (docs/decisions/webhooks.md). */
export const WEBHOOK_EVENT_NAMES = ['order_created', 'order_updated', 'order_cancelled', 'order_refunded', 'order_abandoned'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/** What the dashboard's "Send a test event" sends: signed like any event, tied to no cart, never retried or recorded. */
export const WEBHOOK_TEST_EVENT = 'webhook_test';

export interface PaymentSummary {
  brand: string;
  last4: string;
  /** Set when the payment failed: `card_declined`, `insufficient_funds`, `processor_error`, … */
  failureCode?: string;
  /** What 3-D Secure did, once the payment has an outcome (absent while it is processing). */
  threeDSecure?: { result: ThreeDSecureResult };
}

/**
 * Whether nothing can follow this event for its cart: a session that ended without a payment has no
 * refund to come. A paid order (`order_created`, `order_refunded`) may still be refunded.
 */
export function isLastCartEvent(input: Pick<CartEventInput, 'event' | 'status'>): boolean {
  return input.event === 'order_abandoned' || input.event === 'order_cancelled' || input.status === 'failed';
}

/** What the cart workflow says happened; the body is built from it and the ledger. */
export interface CartEventInput {
  cartId: string;
  event: WebhookEventName;
  status: CartStatus;
  payment?: PaymentSummary;
  /** Why a `failed` session failed, also when no payment was tried (`otp_locked`). */
  failureCode?: string;
  /** Set on `order_refunded`: the refund it announces; one event per refund. */
  refund?: RefundSummary;
}

/** What `order_refunded` says of its refund (docs/decisions/refunds.md). */
export interface RefundSummary {
  id: string;
  /** Minor units. */
  amount: number;
  /** Every succeeded refund of the order so far, this one included. */
  refundedTotal: number;
  reason: string | null;
}

/** The body every merchant receives (docs/decisions/webhooks.md). */
export interface WebhookEventBody {
  id: string;
  event: WebhookEventName;
  createdAt: string;
  environment: 'sandbox' | 'production';
  sequence: number;
  data: {
    cartId: string;
    status: CartStatus;
    amount: number;
    currency: string;
    items: unknown[];
    extra: Record<string, string>;
    /** `api_key`: the merchant made the cart with its API key; `public`: anyone may have (create-cart is public). */
    createdWith: CartProvenance;
    payment?: PaymentSummary;
    failureCode?: string;
    refund?: RefundSummary;
  };
}

/** Where an event stands: pending until a 2xx; failed once its retries are spent; skipped while its endpoint was disabled. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
