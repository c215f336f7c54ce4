import type { CartProvenance } from '../checkout/cart-provenance.js';
import type { CancelledBy, CartStatus } from '../checkout/session.js';
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
  /** Set on every event of a cart created with `captureMethod: "manual"` (docs/webhooks.md). */
  captureMethod?: 'manual';
  /** Set once a manual authorization was captured: the amount captured, minor units (refunds are held to it). */
  capturedAmount?: number;
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
  /** Set on `order_cancelled`: who ended the session. */
  cancelledBy?: CancelledBy;
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
    /** On `order_cancelled`: `customer` (Cancel on the page) or `merchant` (the expire endpoint). Absent from events recorded before 1.1. */
    cancelledBy?: CancelledBy;
  };
}

/**
 * Where an event stands at one endpoint: pending until a 2xx; failed once its retries are spent;
 * skipped while the endpoint was disabled. An event as a whole sums up its endpoints
 * (core/webhooks/event-store.ts setDeliveryStatus), or is `unsubscribed` when no endpoint wanted it.
 */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped', 'unsubscribed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
