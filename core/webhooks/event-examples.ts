import type { z } from 'zod';
import { CART_EVENT_SCHEMAS, type TestEventBody, type WebhookEventName } from './events.js';

/**
 * One body of each event, as sent: the examples of the OpenAPI document's `webhooks` and of
 * docs/webhooks.md, parsed with their schemas by test/unit/webhook-docs.test.ts.
 */

/** The example cart line: create-cart's request example (api/docs/openapi.ts) and every event's. */
export const EXAMPLE_ITEM = {
  title: 'T-shirt',
  description: 'Organic cotton',
  price: 1999,
  quantity: 2,
  url: 'https://store.example/products/t-shirt',
  image: 'https://store.example/products/t-shirt.png',
  zeroPay: false,
  sku: 'TS-ORG-M-BLU',
  variantOptions: ['Size : M', 'Color : Blue'],
};
const cartId = 'q3Vh0Xc2b1TzM9r8L5kA7wYe';
/** The order as it stands before any payment: every field present, null where nothing happened yet. */
const order = {
  cartId,
  amount: 3998,
  currency: 'EUR',
  country: 'FR',
  captureMethod: 'automatic' as const,
  capturedAmount: null,
  refundedTotal: 0,
  payment: null,
  failureCode: null,
  cancelledBy: null,
  customer: null,
  items: [EXAMPLE_ITEM],
  extra: { orderRef: 'order-42' },
  createdWith: 'api_key' as const,
  paymentLinkId: null,
  retryOf: null,
  retryRoot: null,
  recoveryUrl: null,
  recoveredFrom: null,
  dispute: null,
  earlyFraudWarningAt: null,
  createdAt: '2030-01-01T11:58:00.000Z',
  paidAt: null,
};
const sent = { createdAt: '2030-01-01T12:00:00.000Z', environment: 'sandbox' as const };
const paid = {
  capturedAmount: 3998,
  payment: { brand: 'visa', last4: '4242', threeDSecure: { result: 'not_required' as const }, savedCard: false },
  customer: { email: 'jane@example.com' },
  paidAt: '2030-01-01T12:00:00.000Z',
};

export const CART_EVENT_EXAMPLES: { [E in WebhookEventName]: z.infer<(typeof CART_EVENT_SCHEMAS)[E]> } = {
  order_created: {
    id: 'evt_0a1b2c3d4e5f6a7b8c9d0e1f',
    event: 'order_created',
    ...sent,
    sequence: 1,
    data: { ...order, ...paid, status: 'paid' },
  },
  order_updated: {
    id: 'evt_1b2c3d4e5f6a7b8c9d0e1f2a',
    event: 'order_updated',
    ...sent,
    sequence: 2,
    data: {
      ...order,
      ...paid,
      status: 'paid',
      captureMethod: 'manual',
      capturedAmount: 3000,
      payment: { brand: 'visa', last4: '4242', threeDSecure: { result: 'frictionless' }, savedCard: true },
      customer: { phone: '+33612345678' },
    },
  },
  order_cancelled: {
    id: 'evt_2c3d4e5f6a7b8c9d0e1f2a3b',
    event: 'order_cancelled',
    ...sent,
    sequence: 1,
    data: { ...order, status: 'cancelled', cancelledBy: 'merchant' },
  },
  order_abandoned: {
    id: 'evt_3d4e5f6a7b8c9d0e1f2a3b4c',
    event: 'order_abandoned',
    ...sent,
    sequence: 1,
    data: { ...order, status: 'abandoned', recoveryUrl: 'https://checkout.example.com/r/3q2-9d8Kx1LmNo4PqRs7TuVwXyZ0aBcDeFgHiJkLmNoPq' },
  },
  order_refunded: {
    id: 'evt_4e5f6a7b8c9d0e1f2a3b4c5d',
    event: 'order_refunded',
    ...sent,
    sequence: 2,
    data: {
      ...order,
      ...paid,
      status: 'partially_refunded',
      refundedTotal: 1000,
      refund: { id: 're_Jx0b3kQ8VhV2mW9sT1aP4cLd', amount: 1000, refundedTotal: 1000, reason: 'Damaged in transit' },
    },
  },
  order_disputed: {
    id: 'evt_5f6a7b8c9d0e1f2a3b4c5d6e',
    event: 'order_disputed',
    ...sent,
    sequence: 2,
    data: {
      ...order,
      ...paid,
      status: 'paid',
      dispute: { id: 'dp_1Q2w3E4r5T6y7U8i', amount: 3998, reason: 'product_not_received', status: 'needs_response', evidenceDueBy: '2030-01-08T12:00:00.000Z' },
    },
  },
};

export const TEST_EVENT_EXAMPLE: TestEventBody = {
  id: 'evt_test_0a1b2c3d4e5f6a7b8c9d0e1f',
  event: 'webhook_test',
  ...sent,
  sequence: 0,
  data: { message: 'A test event sent from the dashboard. Answer 2xx once its signature verifies.' },
};
